#include "daemon/round/round_planner.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "daemon/round/sticky_servers.h"
#include "synergy/between_rounds.h"
#include "synergy/lease_keeping.h"

namespace synergy::daemon {

namespace {

// The nodes that take part, each less what `pinned` leases and ended
// leases hold there (ids and memory); nodes with nothing left sit out.
std::vector<v1::Node> NodesLeft(const RoundWorld& world, const std::set<std::string>& pinned) {
  // What pinned leases hold is not the round's to give.
  std::map<std::string, std::pair<std::set<int>, std::set<int>>> pinned_ids;
  std::map<std::string, std::vector<std::pair<std::string, double>>> pinned_mem;  // `pinned` is in id order
  for (const std::string& id : pinned) {
    auto it = world.held.find(id);
    if (it == world.held.end()) continue;
    for (const v1::LeaseSlice& s : it->second.lease.slices()) {
      auto& [gpus, cpus] = pinned_ids[s.node()];
      gpus.insert(s.gpu_ids().begin(), s.gpu_ids().end());
      cpus.insert(s.cpu_ids().begin(), s.cpu_ids().end());
      pinned_mem[s.node()].emplace_back(id, s.mem_gb());
    }
  }
  std::vector<v1::Node> usable;
  for (const RoundNode& n : world.nodes) {
    if (!n.usable) continue;
    v1::Node node;
    node.set_name(n.name);
    v1::NodeResources* cap = node.mutable_capacity();
    auto taken = pinned_ids.find(n.name);
    if (taken == pinned_ids.end()) {
      *cap = n.capacity;
    } else {
      *cap = IdsLeft(n.capacity, taken->second.first, taken->second.second);
    }
    // Memory held by ended and pinned leases, slice by slice in job order
    // (the same doubles however the two kinds interleave).
    std::vector<std::pair<std::string, double>> held = n.ended_mem;
    const auto& pinned_here = pinned_mem[n.name];
    held.insert(held.end(), pinned_here.begin(), pinned_here.end());
    std::stable_sort(held.begin(), held.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [job, mem] : held) cap->set_mem_gb(std::max(0.0, cap->mem_gb() - mem));
    if (cap->gpu_ids_size() > 0 && cap->cpu_ids_size() > 0 && cap->mem_gb() > 0) usable.push_back(std::move(node));
  }
  return usable;
}

// On a cluster of several GPU types: every job's views on each type
// (typed_views.h), with the nodes' types as leases may be on nodes that sit
// this round out, and the base type's share taken on every registered node
// of it, whole, whether it takes part or not.
TypedViews TypedViewsOf(const RoundWorld& world, const ModelZoo& zoo, const std::vector<const RoundJob*>& jobs,
                        RoundSnapshot& snap) {
  const std::vector<std::string>& types = snap.cluster.gpu_types();
  std::map<std::string, int> lease_type;
  std::vector<v1::Node> base_nodes;
  for (const RoundNode& n : world.nodes) {
    const std::string type = n.whole.gpu_type().empty() ? zoo.base_gpu_type() : n.whole.gpu_type();
    auto it = std::find(types.begin(), types.end(), type);
    if (it != types.end()) lease_type[n.name] = static_cast<int>(it - types.begin());
    if (type == zoo.base_gpu_type() && n.whole.gpu_ids_size() > 0 && n.whole.cpu_ids_size() > 0 &&
        n.whole.mem_gb() > 0) {
      v1::Node& base = base_nodes.emplace_back();
      base.set_name(n.name);
      *base.mutable_capacity() = n.whole;
    }
  }
  std::vector<const v1::Node*> base_pointers;
  for (const v1::Node& n : base_nodes) base_pointers.push_back(&n);
  const Cluster base_cluster = ClusterOf(base_pointers).cluster;
  return ViewsByGpuType(jobs, snap.views, snap.cluster, lease_type,
                        base_cluster.num_servers() > 0 ? base_cluster : snap.cluster, zoo);
}

}  // namespace

RoundSnapshot SnapshotOf(const RoundWorld& world, const ModelZoo& zoo, const std::set<std::string>& pinned,
                         const RoundSnapshot* first) {
  RoundSnapshot snap;
  const std::vector<v1::Node> usable = NodesLeft(world, pinned);
  std::vector<const v1::Node*> pointers;
  for (const v1::Node& n : usable) pointers.push_back(&n);
  std::map<std::string, const v1::NodeResources*> whole;
  for (const RoundNode& n : world.nodes) {
    if (n.whole.gpu_ids_size() > 0) whole[n.name] = &n.whole;
  }
  RoundCluster rc = ClusterOf(pointers, whole);
  snap.cluster = WithBaseGpuType(rc.cluster, zoo.base_gpu_type());
  snap.node_names = std::move(rc.node_names);
  std::vector<const RoundJob*> jobs;
  snap.tenants = world.tenants;  // pinned_gpus: what leases outside the queue hold
  if (!snap.tenants.quotas.empty()) snap.tenants.pinned_gpus.resize(snap.tenants.quotas.size(), 0);
  for (const RoundJob& job : world.queue) {
    if (pinned.count(job.id) && job.tenant >= 0 && job.tenant < static_cast<int>(snap.tenants.pinned_gpus.size())) {
      snap.tenants.pinned_gpus[job.tenant] += job.gpus;
    }
    if (pinned.count(job.id) || job.gpus > snap.cluster.total().gpus) continue;
    snap.views.push_back(ViewOf(job, zoo, snap.cluster, snap.measured));
    jobs.push_back(&job);
    // Running now: for the starvation guard it last ran now, as the
    // simulator marks every job that ran in the round before.
    if (job.holds_lease && job.running) snap.views.back().last_execution_end_s = world.now_ms / 1000.0;
  }
  snap.typed = HasOtherGpuTypes(snap.cluster, zoo.base_gpu_type());
  if (snap.typed) snap.by_type = TypedViewsOf(world, zoo, jobs, snap);
  if (first != nullptr) {
    std::map<JobId, double> carried;
    for (const JobView& v : first->views) carried[v.id] = v.last_round_speedup;
    for (JobView& v : snap.views) {
      if (auto it = carried.find(v.id); it != carried.end()) v.last_round_speedup = it->second;
    }
  }
  return snap;
}

RoundResult PlanSnapshot(const RoundSnapshot& snap, int64_t now_ms, const std::map<std::string, HeldLease>& held,
                         const Policy& policy, const Mechanism& mechanism, TypeChoice choice) {
  RoundInput in;
  in.now_s = now_ms / 1000.0;
  in.cluster = &snap.cluster;
  in.tenants = &snap.tenants;
  for (const JobView& v : snap.views) in.queue.push_back(&v);
  RoundResult r;
  if (snap.typed) {
    TypedRoundInput typed;
    typed.round = std::move(in);
    typed.on_type = snap.by_type.on_type;
    typed.choice = choice;
    r = ScheduleTypedRound(typed, policy, mechanism);
  } else {
    r = ScheduleRound(in, policy, mechanism);
  }
  std::map<std::string, const v1::Lease*> current;
  for (const auto& [id, lease] : held) current[id] = &lease.lease;
  StickToCurrentNodes(r.plan, snap.cluster, snap.node_names, current);
  return r;
}

namespace {

// Each planned job's type and service weight there (none on one type).
struct PlannedTypes {
  std::map<std::string, double> weight;
  std::map<std::string, std::string> type;
};
PlannedTypes TypesPlanned(const RoundSnapshot& snap, const Plan& plan) {
  PlannedTypes out;
  if (!snap.typed) return out;
  for (const Assignment& a : plan.assignments) {
    if (a.slices.empty()) continue;
    const int type = snap.cluster.gpu_type_of(a.slices.front().server);
    out.weight[JobIdString(a.job)] = ServiceWeight(snap.by_type, a.job, type);
    out.type[JobIdString(a.job)] = snap.cluster.gpu_types()[type];
  }
  return out;
}

std::map<std::string, const Assignment*> ByJob(const Plan& plan) {
  std::map<std::string, const Assignment*> planned;
  for (const Assignment& a : plan.assignments) planned[JobIdString(a.job)] = &a;
  return planned;
}

}  // namespace

namespace {

// The plan of every job of `world` but `pinned` around what those hold (the
// replan's and the launches' callback): a snapshot of the nodes less what
// the pinned leases hold, carrying `first`'s speedups; with the node names
// and planned types the decisions on it read.
struct PlannedAround {
  Plan plan;
  std::vector<std::string> node_names;
  PlannedTypes types;
};
PlannedAround PlanAroundPins(const RoundWorld& world, const ModelZoo& zoo, const std::set<JobId>& pinned,
                             const RoundSnapshot& first, const Policy& policy, const Mechanism& mechanism,
                             TypeChoice choice) {
  std::set<std::string> pins;
  for (JobId job : pinned) pins.insert(JobIdString(job));
  RoundSnapshot around = SnapshotOf(world, zoo, pins, &first);
  PlannedAround out;
  if (around.cluster.num_servers() > 0) {
    out.plan = PlanSnapshot(around, world.now_ms, world.held, policy, mechanism, choice).plan;
  }
  out.types = TypesPlanned(around, out.plan);
  out.node_names = std::move(around.node_names);
  return out;
}

// Each node's GPU type, the zoo's base type where it declared none.
std::map<std::string, std::string> NodeTypes(const RoundWorld& world, const ModelZoo& zoo) {
  std::map<std::string, std::string> node_type;
  for (const RoundNode& n : world.nodes) {
    node_type[n.name] = n.whole.gpu_type().empty() ? zoo.base_gpu_type() : n.whole.gpu_type();
  }
  return node_type;
}

// What becomes of a held lease given its job's assignment in the plan
// being judged, whose node names and planned types it reads (each replan
// replaces them).
struct LeaseJudge {
  const RoundWorld& world;
  std::map<std::string, std::string> node_type;
  std::vector<std::string> names;
  PlannedTypes types;

  LeaseDecision operator()(const std::string& id, const Assignment* planned) const {
    const HeldLease& held = world.held.at(id);
    // Planned on another type than its lease's: its weight there.
    double other_type_weight = 0;
    auto t = types.type.find(id);
    if (t != types.type.end() && held.lease.slices_size() > 0) {
      auto held_type = node_type.find(held.lease.slices(0).node());
      if (held_type != node_type.end() && held_type->second != t->second) other_type_weight = types.weight.at(id);
    }
    return DecideLease(held.lease, planned, held.checkpoints, names, world.restart_gain, other_type_weight);
  }
};

// A round in which no node takes part: leases on nodes drained or leaving
// still end, as they would if one node were left; the rest (nodes not
// registered again since a restart, or silent) are left to re-adoption and
// to the heartbeat timeout.
std::map<std::string, LeaseDecision> EndedWithoutNodes(const RoundWorld& world) {
  std::set<std::string> withdrawn;
  for (const RoundNode& n : world.nodes) {
    if (n.withdrawn) withdrawn.insert(n.name);
  }
  std::map<std::string, LeaseDecision> ended;
  for (const auto& [id, held] : world.held) {
    for (const v1::LeaseSlice& s : held.lease.slices()) {
      if (!withdrawn.count(s.node())) continue;
      ended.emplace(id, LeaseDecision{LeaseFate::kEnd, absl::StrCat("no node takes part in the round (", s.node(),
                                                                    " drained or leaving)")});
      break;
    }
  }
  return ended;
}

}  // namespace

RoundDecisions PlanRoundWorld(const RoundWorld& world, const ModelZoo& zoo, const Policy& policy,
                              const Mechanism& mechanism, TypeChoice choice) {
  RoundDecisions out;
  RoundSnapshot snap = SnapshotOf(world, zoo);
  if (snap.cluster.num_servers() == 0) {
    out.leases = EndedWithoutNodes(world);
    out.planned = !out.leases.empty();
    return out;
  }
  out.planned = true;
  RoundResult r = PlanSnapshot(snap, world.now_ms, world.held, policy, mechanism, choice);
  for (const JobView* v : r.order) out.order.push_back(JobIdString(v->id));
  for (const JobView* v : r.bumped) out.bumped.push_back(JobIdString(v->id));
  out.first_plan_size = r.plan.assignments.size();

  Plan plan = std::move(r.plan);
  LeaseJudge judge{world, NodeTypes(world, zoo), snap.node_names, TypesPlanned(snap, plan)};
  // The core's replan loop (synergy/lease_keeping.h): each plan around
  // the pinned leases is a snapshot of the nodes less what they hold, whose
  // node names and types the decisions on that plan read.
  std::vector<JobId> held_jobs;
  for (const auto& [id, held] : world.held) held_jobs.push_back(NumericJobId(id));
  KeptLeases kept = KeepLeasesAsHeld(
      std::move(plan), held_jobs,
      [&](JobId job, const Assignment* planned) {
        return judge(JobIdString(job), planned);
      },
      [&](const std::set<JobId>& pinned) {
        PlannedAround around = PlanAroundPins(world, zoo, pinned, snap, policy, mechanism, choice);
        judge.types = std::move(around.types);
        judge.names = std::move(around.node_names);
        return std::move(around.plan);
      });
  plan = std::move(kept.plan);
  std::set<std::string> pins;
  for (auto& [job, d] : kept.pinned) {
    pins.insert(JobIdString(job));
    out.leases.emplace(JobIdString(job), std::move(d));
  }
  // The rest keep what the final plan gives them exactly, or end (also a
  // job still re-placed after kMaxReplans plans).
  const auto planned = ByJob(plan);
  for (const auto& [id, held] : world.held) {
    if (pins.count(id)) continue;
    auto p = planned.find(id);
    LeaseDecision d = judge(id, p == planned.end() ? nullptr : p->second);
    if (d.fate == LeaseFate::kKeepAsHeld) d = LeaseDecision{LeaseFate::kEnd, d.why};
    out.leases.emplace(id, std::move(d));
  }
  out.plan = std::move(plan);
  out.node_names = std::move(judge.names);
  out.service_weight = std::move(judge.types.weight);
  return out;
}

namespace {

// GPUs on the nodes that take part that no held lease holds, and the
// fewest GPUs a waiting job asks for (0: none waits).
std::pair<int, int> FreeAndFewestWaiting(const RoundWorld& world) {
  std::map<std::string, std::set<int>> held_gpus;
  for (const auto& [id, held] : world.held) {
    for (const v1::LeaseSlice& s : held.lease.slices()) {
      held_gpus[s.node()].insert(s.gpu_ids().begin(), s.gpu_ids().end());
    }
  }
  int free = 0;
  for (const RoundNode& n : world.nodes) {
    if (!n.usable) continue;
    const std::set<int>& taken = held_gpus[n.name];
    for (int gpu : n.capacity.gpu_ids()) free += taken.count(gpu) ? 0 : 1;
  }
  int fewest = 0;
  for (const RoundJob& job : world.queue) {
    if (job.holds_lease) continue;
    if (fewest == 0 || job.gpus < fewest) fewest = job.gpus;
  }
  return {free, fewest};
}

}  // namespace

RoundDecisions PlanLaunchesBetweenRounds(const RoundWorld& world, const ModelZoo& zoo, const Policy& policy,
                                         const Mechanism& mechanism, TypeChoice choice) {
  RoundDecisions out;
  const auto [free_gpus, fewest] = FreeAndFewestWaiting(world);
  if (!CanLaunchAny(free_gpus, fewest)) return out;
  const RoundSnapshot first = SnapshotOf(world, zoo);
  if (first.cluster.num_servers() == 0) return out;
  std::vector<JobId> running;
  for (const auto& [id, held] : world.held) running.push_back(NumericJobId(id));
  int widest = 0;
  for (const RoundNode& n : world.nodes) {
    if (n.usable) widest = std::max(widest, n.whole.gpu_ids_size());
  }
  PlannedTypes types;
  out.plan = LaunchBetweenRounds(running, widest, [&](const std::set<JobId>& pinned) {
    PlannedAround around = PlanAroundPins(world, zoo, pinned, first, policy, mechanism, choice);
    types = std::move(around.types);
    out.node_names = std::move(around.node_names);
    return std::move(around.plan);
  });
  out.planned = true;
  out.first_plan_size = out.plan.assignments.size();
  out.service_weight = std::move(types.weight);
  return out;
}

}  // namespace synergy::daemon
