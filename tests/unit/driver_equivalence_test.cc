// One core, two drivers, over many rounds: the simulator keeps its jobs as
// JobViews it updates itself; synergyd rebuilds each round's views from its
// records (a RoundJob per job, the lease the last round granted) through
// SnapshotOf. Given the same history, round after round, the daemon's views
// must be the simulator's and plan the same, under every policy and every
// mechanism (OPT included: its budget is counted in work, not time).
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "daemon/round/round_input.h"
#include "daemon/round/round_planner.h"
#include "gtest/gtest.h"
#include "sim/simulator.h"
#include "synergy/typed_round.h"
#include "test_support.h"

namespace synergy::daemon {
namespace {

struct SimRound {
  double now_s = 0;
  std::vector<JobView> views;  // queue order, as the simulator offered them
  RoundResult result;          // pointers into the simulator's views: use only `plan`
  std::vector<JobId> order;
};

// A workload with queueing: 40 jobs of every task and size arriving faster
// than 16 GPUs serve them.
std::vector<sim::JobSpec> Trace(const ModelZoo& zoo) {
  const std::vector<std::string> models = {"res18", "gnmt", "alexnet", "transformer", "mobilenet",
                                           "lstm", "m5", "res50", "shufflenet", "deepspeech"};
  const std::vector<int> gpus = {1, 2, 1, 4, 1, 8, 1, 2, 1, 1, 4, 1, 2};
  std::vector<sim::JobSpec> trace;
  for (int i = 0; i < 40; ++i) {
    sim::JobSpec j;
    j.id = i + 1;
    j.model = zoo.Find(models[i % models.size()]);
    EXPECT_GE(j.model, 0) << models[i % models.size()];
    j.gpus = gpus[i % gpus.size()];
    j.iterations = 2000 + 700 * (i % 7);
    j.arrival_s = 100.0 * i;
    trace.push_back(j);
  }
  return trace;
}

// What synergyd's records say of a job the simulator offered in a round:
// its spec, progress and service as stored, and the lease the previous
// round granted it (Grant records the assignment's speedup and whether it
// was the ideal demand).
// `exact`: its progress as the simulator booked it (fractions of an
// iteration), else in whole iterations as agents report them.
RoundJob RecordOf(const JobView& v, const std::string& model, const Assignment* last_round, const Cluster& cluster,
                  bool exact = false, double lease_service_weight = 0) {
  RoundJob r;
  r.id = JobIdString(v.id);
  r.gpus = v.gpus;
  r.uses_agent = true;
  r.model = model;
  r.submitted_unix_ms = static_cast<int64_t>(v.arrival_s * 1000);
  r.iterations = static_cast<int64_t>(v.total_iterations);
  r.iterations_done = v.total_iterations - v.remaining_iterations;
  if (!exact) r.iterations_done = std::floor(r.iterations_done);
  r.attained_service_ms = std::llround(v.attained_service_s * 1000);
  r.last_lease_end_unix_ms = v.last_execution_end_s >= 0 ? static_cast<int64_t>(v.last_execution_end_s * 1000) : 0;
  r.starvation_priority = v.priority;
  r.holds_lease = last_round != nullptr;
  if (last_round != nullptr) {
    r.lease_speedup = last_round->speedup;
    r.lease_at_ideal = last_round->at_ideal;
    r.lease_node = cluster.servers()[last_round->slices.front().server].name;
    r.lease_service_weight = lease_service_weight;
    r.running = true;
  }
  return r;
}

// synergyd's nodes for `cluster`: every server a node of the same name,
// capacity and GPU type.
std::vector<RoundNode> NodesOf(const Cluster& cluster) {
  std::vector<RoundNode> nodes;
  for (const ServerSpec& server : cluster.servers()) {
    RoundNode n;
    n.name = server.name;
    n.usable = true;
    for (int g = 0; g < server.capacity.gpus; ++g) n.capacity.add_gpu_ids(g);
    for (int c = 0; c < static_cast<int>(server.capacity.cpus); ++c) n.capacity.add_cpu_ids(c);
    n.capacity.set_mem_gb(server.capacity.mem_gb);
    n.capacity.set_gpu_type(server.gpu_type);
    n.whole = n.capacity;
    nodes.push_back(n);
  }
  return nodes;
}

// Runs the trace through the simulator under every policy and `mechanisms`,
// and checks, round after round, that SnapshotOf builds the simulator's
// views from the records and that PlanSnapshot plans what it did.
void ExpectTheDriversAgree(const Cluster& cluster, const std::vector<std::string>& mechanisms, TypeChoice choice) {
  const ModelZoo zoo = testing::ZooOrDie();
  const std::vector<sim::JobSpec> trace = Trace(zoo);
  RoundWorld world_nodes;
  world_nodes.nodes = NodesOf(cluster);
  for (const std::string policy_name : PolicyNames()) {
    for (const std::string& mechanism_name : mechanisms) {
      const std::string label = policy_name + "/" + mechanism_name;
      auto policy = *MakePolicy(policy_name);
      auto mechanism = *MakeMechanism(mechanism_name);
      std::vector<SimRound> rounds;
      sim::SimConfig sc;
      sc.cluster = &cluster;
      sc.zoo = &zoo;
      sc.policy = policy.get();
      sc.mechanism = mechanism.get();
      sc.type_choice = choice;
      sc.on_round = [&](const RoundInput& in, const RoundResult& r) {
        SimRound round;
        for (const JobView* v : in.queue) round.views.push_back(*v);
        round.result.plan = r.plan;
        for (const JobView* v : r.order) round.order.push_back(v->id);
        rounds.push_back(std::move(round));
      };
      ASSERT_TRUE(sim::RunTrace(sc, trace).ok()) << label;
      ASSERT_GT(rounds.size(), 20u) << label;

      int compared = 0;
      for (size_t k = 1; k < rounds.size(); ++k) {
        const SimRound& round = rounds[k];
        const Plan& last = rounds[k - 1].result.plan;
        RoundWorld world = world_nodes;
        world.now_ms = static_cast<int64_t>(300000 * k);
        for (const JobView& v : round.views) {
          world.queue.push_back(RecordOf(v, zoo.model(trace[v.id - 1].model).name, last.Find(v.id), cluster));
        }
        RoundSnapshot snap = SnapshotOf(world, zoo);
        ASSERT_EQ(snap.typed, cluster.heterogeneous()) << label;
        ASSERT_EQ(snap.views.size(), round.views.size()) << label << " round " << k;
        for (size_t i = 0; i < snap.views.size(); ++i) {
          JobView& d = snap.views[i];
          const JobView& s = round.views[i];
          const std::string where = label + " round " + std::to_string(k) + " job " + std::to_string(s.id);
          ASSERT_EQ(d.id, s.id) << where;
          EXPECT_EQ(d.gpus, s.gpus) << where;
          EXPECT_EQ(d.arrival_s, s.arrival_s) << where;
          EXPECT_EQ(d.ideal_demand, s.ideal_demand) << where;
          EXPECT_EQ(d.ideal_speedup, s.ideal_speedup) << where;
          EXPECT_EQ(d.asks_for_share, s.asks_for_share) << where;
          EXPECT_EQ(d.iteration_time_s, s.iteration_time_s) << where;
          EXPECT_EQ(d.placement_penalty, s.placement_penalty) << where;
          EXPECT_EQ(d.total_iterations, s.total_iterations) << where;
          // Milliseconds in the daemon's records; on several GPU types the
          // service is weighted, so fractions of one are lost.
          EXPECT_NEAR(d.attained_service_s, s.attained_service_s, 1e-3) << where;
          EXPECT_EQ(d.priority, s.priority) << where;
          EXPECT_DOUBLE_EQ(d.last_round_speedup, s.last_round_speedup) << where;
          EXPECT_EQ(d.last_execution_end_s, s.last_execution_end_s) << where;
          EXPECT_EQ(d.profile != nullptr, s.profile != nullptr) << where;
          // The daemon counts whole iterations (agents report them); the
          // simulator books fractions. The rest of the comparison takes
          // the simulator's (each view on a type too).
          EXPECT_NEAR(d.remaining_iterations, s.remaining_iterations, 1.0) << where;
          d.remaining_iterations = s.remaining_iterations;
          d.attained_service_s = s.attained_service_s;
        }
        for (JobView& on : snap.by_type.views) {
          for (const JobView& s : round.views) {
            if (s.id != on.id) continue;
            on.remaining_iterations = s.remaining_iterations;
            on.attained_service_s = s.attained_service_s;
          }
        }
        // No current leases: the simulator does not keep jobs on their
        // servers either (it charges no restarts here).
        const RoundResult daemon = PlanSnapshot(snap, world.now_ms, {}, *policy, *mechanism, choice);
        const std::string where = label + " round " + std::to_string(k);
        ASSERT_EQ(daemon.order.size(), round.order.size()) << where;
        for (size_t i = 0; i < daemon.order.size(); ++i) EXPECT_EQ(daemon.order[i]->id, round.order[i]) << where;
        testing::ExpectSamePlan(daemon.plan, round.result.plan, where);
        ++compared;
        if (::testing::Test::HasFailure()) return;  // one divergence is enough to read
      }
      EXPECT_GT(compared, 20) << label;
    }
  }
}

// One round's outcome in either driver, by node name: the jobs kept as
// they hold, and every other job's planned slices.
struct KeptOutcome {
  std::vector<JobId> kept_as_held;
  std::map<JobId, std::vector<std::tuple<std::string, int, double, double>>> planned;
  std::map<JobId, std::pair<double, bool>> speedup;  // and at_ideal
};

KeptOutcome OutcomeOf(const Plan& plan, const std::vector<std::string>& names, std::vector<JobId> kept) {
  KeptOutcome out;
  out.kept_as_held = std::move(kept);
  for (const Assignment& a : plan.assignments) {
    for (const Slice& s : a.slices) {
      out.planned[a.job].emplace_back(names[s.server], s.resources.gpus, s.resources.cpus, s.resources.mem_gb);
    }
    std::sort(out.planned[a.job].begin(), out.planned[a.job].end());
    out.speedup[a.job] = {a.speedup, a.at_ideal};
  }
  return out;
}

// The leases synergyd would hold after a round booked `booked`: each
// assignment a lease with ids taken in order on its nodes, for the jobs
// still queued.
std::map<std::string, HeldLease> LeasesOf(const std::vector<Assignment>& booked, const Cluster& cluster,
                                          const std::set<JobId>& queued, bool resizable,
                                          const std::map<JobId, double>& service_weight) {
  std::map<std::string, HeldLease> held;
  std::map<int, std::pair<int, int>> next_id;  // server -> next GPU id, next CPU id
  int64_t epoch = 0;
  for (const Assignment& a : booked) {
    ++epoch;
    if (!queued.count(a.job)) continue;
    v1::Lease lease;
    lease.set_epoch(epoch);
    lease.set_speedup(a.speedup);
    lease.set_at_ideal(a.at_ideal);
    lease.set_resizable(resizable);
    if (auto w = service_weight.find(a.job); w != service_weight.end()) lease.set_service_weight(w->second);
    for (const Slice& s : a.slices) {
      v1::LeaseSlice* slice = lease.add_slices();
      slice->set_node(cluster.servers()[s.server].name);
      auto& [gpu, cpu] = next_id[s.server];
      for (int g = 0; g < s.resources.gpus; ++g) slice->add_gpu_ids(gpu++);
      // Whole CPU ids, as a grant gives them (the simulator holds fractions).
      for (int c = 0; c < WholeCpus(s.resources.cpus); ++c) slice->add_cpu_ids(cpu++);
      slice->set_mem_gb(s.resources.mem_gb);
    }
    held[JobIdString(a.job)] = HeldLease{lease, /*checkpoints=*/true};
  }
  return held;
}

// Leases kept round after round: the simulator's lease keeping (its own
// loop before issue 40) and synergyd's PlanRoundWorld, given the same
// queue and the same held leases, keep the same jobs as they hold and plan
// the others alike, every round; with resizes in place too.
void ExpectTheDriversKeepLeasesAlike(const Cluster& cluster, const std::vector<std::string>& mechanisms,
                                     bool resize_in_place, TypeChoice choice = TypeChoice::kFirstFit) {
  const ModelZoo zoo = testing::ZooOrDie();
  const std::vector<sim::JobSpec> trace = Trace(zoo);
  std::vector<std::string> names;
  for (const ServerSpec& server : cluster.servers()) names.push_back(server.name);
  for (const std::string policy_name : PolicyNames()) {
    for (const std::string& mechanism_name : mechanisms) {
      const std::string label = policy_name + "/" + mechanism_name + (resize_in_place ? " resizing" : "");
      auto policy = *MakePolicy(policy_name);
      auto mechanism = *MakeMechanism(mechanism_name);
      std::vector<SimRound> rounds;
      std::vector<KeptOutcome> outcomes;
      std::vector<std::vector<Assignment>> booked;
      sim::SimConfig sc;
      sc.cluster = &cluster;
      sc.zoo = &zoo;
      sc.policy = policy.get();
      sc.mechanism = mechanism.get();
      sc.keep_leases = true;
      sc.resize_in_place = resize_in_place;
      sc.type_choice = choice;
      sc.on_round = [&](const RoundInput& in, const RoundResult& r) {
        SimRound round;
        round.now_s = in.now_s;
        for (const JobView* v : in.queue) round.views.push_back(*v);
        rounds.push_back(std::move(round));
        booked.emplace_back();
        // A round without held leases keeps none: its plan is the first.
        outcomes.push_back(OutcomeOf(r.plan, names, {}));
      };
      sc.on_leases_kept = [&](const Plan& replanned, const std::vector<JobId>& kept) {
        outcomes.back() = OutcomeOf(replanned, names, kept);
      };
      sc.on_booked = [&](double, const Assignment& a) { booked.back().push_back(a); };
      ASSERT_TRUE(sim::RunTrace(sc, trace).ok()) << label;
      int kept_somewhere = 0;
      // On several GPU types: each lease's service weight, as synergyd's
      // grant stored it (the decisions of the round that granted it).
      std::map<JobId, double> weight;
      for (size_t k = 1; k < rounds.size(); ++k) {
        const std::string where = label + " round " + std::to_string(k);
        Plan last;
        last.assignments = booked[k - 1];
        RoundWorld world;
        world.nodes = NodesOf(cluster);
        world.now_ms = std::llround(rounds[k].now_s * 1000);
        std::set<JobId> queued;
        for (const JobView& v : rounds[k].views) {
          auto w = weight.find(v.id);
          world.queue.push_back(RecordOf(v, zoo.model(trace[v.id - 1].model).name, last.Find(v.id), cluster,
                                         /*exact=*/true, w == weight.end() ? 0 : w->second));
          queued.insert(v.id);
        }
        world.held = LeasesOf(booked[k - 1], cluster, queued, resize_in_place, weight);
        const RoundDecisions d = PlanRoundWorld(world, zoo, *policy, *mechanism, choice);
        for (const auto& [id, w] : d.service_weight) weight[NumericJobId(id)] = w;
        std::vector<JobId> pinned;
        for (const auto& [id, decision] : d.leases) {
          if (decision.fate == LeaseFate::kKeepAsHeld) pinned.push_back(NumericJobId(id));
        }
        std::sort(pinned.begin(), pinned.end());
        const KeptOutcome daemon = OutcomeOf(d.plan, d.node_names, pinned);
        const KeptOutcome& simulator = outcomes[k];
        EXPECT_EQ(daemon.kept_as_held, simulator.kept_as_held) << where;
        EXPECT_EQ(daemon.planned, simulator.planned) << where;
        EXPECT_EQ(daemon.speedup, simulator.speedup) << where;
        kept_somewhere += !pinned.empty();
        // One divergence a policy is enough to read.
        if (daemon.kept_as_held != simulator.kept_as_held || daemon.planned != simulator.planned) break;
      }
      // Jobs grow and shrink under TUNE, and move as others end.
      if (mechanism_name == "tune") EXPECT_GT(kept_somewhere, 0) << label << ": the trace keeps no lease as held";
    }
  }
}

TEST(DriverEquivalence, BothDriversKeepTheSameLeasesAndPlanTheRestAlikeEveryRound) {
  ExpectTheDriversKeepLeasesAlike(testing::Homogeneous(4, 8, 24, 500, 0), {"proportional", "tune"},
                                  /*resize_in_place=*/false);
}

TEST(DriverEquivalence, WithResizesInPlaceBothDriversDecideLeasesAlikeEveryRound) {
  ExpectTheDriversKeepLeasesAlike(testing::Homogeneous(4, 8, 24, 500, 0), {"tune"}, /*resize_in_place=*/true);
}

// Nodes of three GPU types, the k80 one too small for the trace's 8-GPU
// jobs.
std::vector<ServerSpec> ThreeGpuTypes() {
  std::vector<ServerSpec> servers = {
      {"a-v100", Resources{8, 24, 500, 0}},
      {"b-v100", Resources{8, 24, 500, 0}},
      {"c-p100", Resources{8, 24, 500, 0}},
      {"d-k80", Resources{4, 16, 256, 0}},
  };
  servers[0].gpu_type = servers[1].gpu_type = "v100";
  servers[2].gpu_type = "p100";
  servers[3].gpu_type = "k80";
  return servers;
}

// Leases kept on nodes of three GPU types, each lease carrying the service
// weight synergyd's grant stored.
TEST(DriverEquivalence, OnSeveralGpuTypesBothDriversKeepTheSameLeasesEveryRound) {
  ExpectTheDriversKeepLeasesAlike(Cluster(ThreeGpuTypes()), {"tune"}, /*resize_in_place=*/false,
                                  TypeChoice::kBestAllocation);
}

TEST(DriverEquivalence, TheDaemonsViewsPlanAsTheSimulatorsRoundAfterRound) {
  // Storage 0: synergyd does not track it.
  ExpectTheDriversAgree(testing::Homogeneous(2, 8, 24, 500, 0), MechanismNames(), TypeChoice::kFirstFit);
}

// Nodes of three GPU types, one of them too small for the trace's 8-GPU
// jobs: each job's views on each type, its service and carried speedup in
// the base type's units, and the typed round, alike in both drivers.
TEST(DriverEquivalence, OnNodesOfSeveralGpuTypesTheDaemonPlansAsTheSimulator) {
  const std::vector<ServerSpec> servers = ThreeGpuTypes();
  const Cluster cluster(servers);
  ExpectTheDriversAgree(cluster, {"proportional", "tune", "tune-graded"}, TypeChoice::kBestAllocation);
  ExpectTheDriversAgree(cluster, {"tune"}, TypeChoice::kGpuThroughput);
  ExpectTheDriversAgree(cluster, {"tune"}, TypeChoice::kFirstFit);
  // No server of the zoo's base type: policies see every job on it as on
  // the whole cluster, in both drivers.
  std::vector<ServerSpec> without_base = {servers[2], servers[3]};
  ExpectTheDriversAgree(Cluster(without_base), {"tune"}, TypeChoice::kBestAllocation);
}

}  // namespace
}  // namespace synergy::daemon
