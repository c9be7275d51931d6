// RoundDriver, rounds: what a round reads, copied under the lock; the
// plan, made without it (round_planner.h); and the plan applied to the
// leases under the lock again.
#include "daemon/round/round_driver.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/round/lease_actions.h"
#include "daemon/round/lease_keeping.h"
#include "daemon/round/round_input.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

RoundWorld RoundDriver::WorldForRound(int64_t now_ms) const {
  RoundWorld world;
  world.now_ms = now_ms;
  world.restart_gain = state_.config_.restart_gain;
  // A node lent whole to a profiling lease sits out the round; leases the
  // round does not manage (finished or cancelled jobs whose processes have
  // not exited yet) keep their ids.
  std::set<std::string> profiling_nodes;
  std::map<std::string, std::pair<std::set<int>, std::set<int>>> ended_ids;
  std::map<std::string, std::vector<std::pair<std::string, double>>> ended_mem;  // state_.jobs_ is in id order
  for (const auto& [id, job] : state_.jobs_.all()) {
    if (!job.has_lease()) continue;
    for (const v1::LeaseSlice& s : job.lease().slices()) {
      if (job.lease().profiling()) profiling_nodes.insert(s.node());
      if (!state_.Terminal(job)) continue;
      ended_ids[s.node()].first.insert(s.gpu_ids().begin(), s.gpu_ids().end());
      ended_ids[s.node()].second.insert(s.cpu_ids().begin(), s.cpu_ids().end());
      ended_mem[s.node()].emplace_back(id, s.mem_gb());
    }
    if (!state_.Terminal(job) && !job.lease().profiling()) {
      // state_.jobs_ is in id order: each lease goes at the end.
      world.held.emplace_hint(world.held.end(), id, HeldLease{job.lease(), job.spec().uses_agent()});
    }
  }
  // Until a profiling lease has ended, its node still sits out: the job that
  // profiled cannot be placed while its lease ends, and a plan made without
  // it would hand the whole node to a peer only to take it back a round
  // later (a restart for nothing).
  for (const auto& [id, of_job] : state_.leases_.all_ending()) {
    for (const auto& [epoch, ending] : of_job) {
      if (!ending.lease.profiling()) continue;
      for (const v1::LeaseSlice& s : ending.lease.slices()) profiling_nodes.insert(s.node());
    }
  }
  for (const auto& [name, n] : state_.nodes_.all()) {
    RoundNode node;
    node.name = name;
    const v1::Node& info = n.info;
    node.whole = info.capacity();
    node.usable = state_.nodes_.TakesPart(name) && !profiling_nodes.count(name);
    node.withdrawn = info.alive() && (info.drained() || info.leaving());
    auto ended = ended_ids.find(name);
    if (ended == ended_ids.end()) {
      node.capacity = info.capacity();
    } else {
      node.capacity = IdsLeft(info.capacity(), ended->second.first, ended->second.second);
      node.ended_mem = std::move(ended_mem[name]);
    }
    // Other work's share (Slurm jobs not synergyd's) is planned around.
    node.capacity = WithoutForeign(node.capacity, info.foreign(), state_.leases_.GrantedGpus(name), state_.leases_.GrantedCpus(name));
    world.nodes.push_back(std::move(node));
  }
  world.queue = QueueForRound(now_ms);
  world.tenants = state_.TenantsForRound(now_ms);
  world.tenants.pinned_gpus = TenantGpusOutside(world);
  return world;
}

std::vector<int> RoundDriver::TenantGpusOutside(const RoundWorld& world) const {
  std::vector<int> gpus(world.tenants.quotas.size(), 0);
  if (gpus.empty()) return gpus;
  std::set<std::string> queued;
  for (const RoundJob& job : world.queue) queued.insert(job.id);
  for (const auto& [id, job] : state_.jobs_.all()) {
    const int tenant = state_.TenantIndexOf(job.spec().tenant());
    if (!job.has_lease() || queued.count(id) || tenant < 0 || tenant >= static_cast<int>(gpus.size())) continue;
    for (const v1::LeaseSlice& s : job.lease().slices()) gpus[tenant] += s.gpu_ids_size();
  }
  return gpus;
}

std::vector<RoundJob> RoundDriver::QueueForRound(int64_t now_ms) const {
  std::vector<RoundJob> queue;
  const std::vector<std::string>& order = state_.jobs_.queue_order();
  queue.reserve(order.size());
  const std::vector<bool> over_cap = OverArrayCaps();
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string& id = order[i];
    const v1::Job& job = state_.jobs_.at(id);
    if (state_.Terminal(job) || job.state() == v1::JOB_STATE_PROFILING || job.held()) continue;
    if (DaemonState::AwaitsDependencies(job) || over_cap[i]) continue;
    if (state_.actions().WantsProfiling(job) && !state_.actions().ProfileWaitOver(job, now_ms)) continue;
    const JobRuntime& rt = state_.jobs_.RuntimeOf(id);
    if (rt.finished) continue;  // its last checkpoint is confirmed: it is exiting
    // Service is stored every progress flush; the round counts it to now,
    // in tenths of a round.
    const LeaseTable::Launch& launch = state_.leases_.LaunchOf(id);
    queue.push_back(RoundJobOf(job, ServiceInTenthsOfARound(state_.actions().ServiceNowMs(job, launch, now_ms), state_.config_.round_ms()),
                               launch.launched()));
    queue.back().tenant = state_.TenantIndexOf(job.spec().tenant());
    queue.back().user = state_.UserIndexOf(job.owner());
  }
  return queue;
}

RoundSnapshot RoundDriver::SnapshotForRound(int64_t now_ms, const std::set<std::string>& pinned) const {
  return SnapshotOf(WorldForRound(now_ms), state_.zoo_, pinned);
}

absl::StatusOr<RoundWorld> RoundDriver::PrepareRound(int64_t now_ms) {
  state_.FoldProgress();
  DaemonState::Change change(state_);
  Batch batch;
  SettleDependencies(batch, now_ms);
  state_.actions().GrantProfilingLeases(batch, now_ms);
  state_.actions().NoteProfileWaitsOver(batch, now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  settled_generation_ = settling_generation_;
  // A round plans every job: the events so far need no launch of their own.
  state_.launch_trigger_.Tried();
  return WorldForRound(now_ms);
}

absl::StatusOr<RoundWorld> RoundDriver::PrepareLaunch(int64_t now_ms) {
  auto world = PrepareRound(now_ms);
  if (!world.ok()) {
    // Refused: tried again after the debounce, not at every tick.
    state_.launch_trigger_.Tried();
    state_.NoteLaunchEvent(now_ms);
    return world;
  }
  ++state_.counters_.launch_tries;
  return world;
}

RoundDecisions RoundDriver::PlanLaunches(const RoundWorld& world) const {
  return PlanTimed(PlanLaunchesBetweenRounds, world);
}

RoundDecisions RoundDriver::PlanTimed(Planner planner, const RoundWorld& world) const {
  const auto start = std::chrono::steady_clock::now();
  RoundDecisions d = planner(world, state_.zoo_, *state_.policy_, *state_.mechanism_, state_.type_choice_);
  d.plan_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return d;
}

absl::Status RoundDriver::ApplyLaunches(const RoundWorld& world, const RoundDecisions& d, int64_t now_ms) {
  DaemonState::Change change(state_);
  Batch batch;
  PlannedByJob planned;
  for (const Assignment& a : d.plan.assignments) planned[JobIdString(a.job)] = &a;
  const int launched =
      d.planned ? static_cast<int>(GrantPlanned(d, planned, /*between_rounds=*/true, batch, now_ms).size()) : 0;
  QueueTheWaiting(batch, now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) {
    state_.NoteLaunchEvent(now_ms);  // undone: tried again after the debounce
    return st;
  }
  state_.counters_.launches_between_rounds += launched;
  if (launched > 0) {
    spdlog::debug("between rounds: {} launched ({} waiting jobs read), {:.3f} ms planning", launched,
                  world.queue.size() - world.held.size(), d.plan_ms);
  }
  return absl::OkStatus();
}

absl::Status RoundDriver::LaunchBetweenRounds(int64_t now_ms) {
  auto world = PrepareLaunch(now_ms);
  if (!world.ok()) return world.status();
  return ApplyLaunches(*world, PlanLaunches(*world), now_ms);
}

std::vector<std::string> RoundDriver::GrantPlanned(const RoundDecisions& d, const PlannedByJob& planned,
                                                   bool between_rounds, Batch& batch, int64_t now_ms) {
  std::vector<std::string> granted;
  for (const Assignment& a : d.plan.assignments) {
    auto p = planned.find(JobIdString(a.job));
    if (p == planned.end() || !StillGrantable(p->first, a, d.node_names)) continue;
    auto weight = d.service_weight.find(p->first);
    state_.actions().Grant(state_.jobs_.Edit(p->first), a, d.node_names,
                           weight == d.service_weight.end() ? 0 : weight->second, batch, now_ms, between_rounds);
    if (state_.jobs_.at(p->first).has_lease()) granted.push_back(p->first);
  }
  return granted;
}

void RoundDriver::SayWhoTookTheirPlace(const RoundWorld& world, const RoundDecisions& d,
                                       const std::vector<std::string>& granted, Batch& batch, int64_t now_ms) {
  std::map<std::pair<std::string, int>, std::string> taken_by;  // (node, GPU id) -> job granted it
  for (const std::string& id : granted) {
    for (const v1::LeaseSlice& s : state_.jobs_.at(id).lease().slices()) {
      for (int gpu : s.gpu_ids()) taken_by[{s.node(), gpu}] = id;
    }
  }
  for (const auto& [id, decision] : d.leases) {
    if (decision.fate != LeaseFate::kEnd) continue;
    auto read = world.held.find(id);
    auto job = state_.jobs_.find(id);
    // Ended now: it held the lease the round read and holds it no more.
    if (read == world.held.end() || job == state_.jobs_.end() ||
        (job->second.has_lease() && job->second.lease().epoch() == read->second.lease.epoch())) {
      continue;
    }
    std::set<std::string> takers;
    for (const v1::LeaseSlice& s : read->second.lease.slices()) {
      for (int gpu : s.gpu_ids()) {
        // Itself, granted again smaller or elsewhere: its ending says why.
        if (auto t = taken_by.find({s.node(), gpu}); t != taken_by.end() && t->second != id) takers.insert(t->second);
      }
    }
    if (takers.empty()) continue;
    state_.Record(batch, state_.jobs_.Edit(id),
                  absl::StrFormat("lease %d ended: the round gave its GPUs to %s (%s order)",
                                  read->second.lease.epoch(), absl::StrJoin(takers, ", "), state_.config_.policy),
                  now_ms);
  }
}

RoundDecisions RoundDriver::PlanRound(const RoundWorld& world) const { return PlanTimed(PlanRoundWorld, world); }

bool RoundDriver::NodesTakePart(const Assignment& planned, const std::vector<std::string>& node_names) const {
  for (const Slice& s : planned.slices) {
    if (!state_.nodes_.TakesPart(node_names[s.server])) return false;
  }
  return true;
}

bool RoundDriver::StillGrantable(const std::string& id, const Assignment& planned,
                                 const std::vector<std::string>& node_names) const {
  auto job = state_.jobs_.find(id);
  // Held while the round planned: not granted.
  if (job == state_.jobs_.end() || state_.Terminal(job->second) || job->second.has_lease() || job->second.held() ||
      DaemonState::AwaitsDependencies(job->second) || job->second.state() == v1::JOB_STATE_PROFILING ||
      state_.jobs_.RuntimeOf(id).finished) {
    return false;
  }
  if (!NodesTakePart(planned, node_names)) return false;
  for (const Slice& s : planned.slices) {
    if (state_.actions().FreeIds(node_names[s.server]).gpu_ids_size() < s.resources.gpus) return false;
  }
  return true;
}

void RoundDriver::BumpStarved(const std::vector<std::string>& bumped, Batch& batch, int64_t now_ms) {
  for (const std::string& id : bumped) {
    if (!state_.jobs_.count(id) || state_.Terminal(state_.jobs_.at(id))) continue;
    v1::Job& job = state_.jobs_.Edit(id);
    job.set_starvation_priority(1);
    state_.Record(batch, job, "waited over 1000 hours: first in its class from now on", now_ms);
  }
}

void RoundDriver::SettleLease(const std::string& id, const v1::Job& job, const LeaseDecision& ld,
                              const RoundDecisions& d, PlannedByJob& planned, std::vector<std::string> resizes[2],
                              Batch& batch, int64_t now_ms) {
  switch (ld.fate) {
    case LeaseFate::kKeepAsHeld:
      ++state_.counters_.leases_kept;
      // Said once per reason, not every round.
      if (job.reason() != ld.why) {
        v1::Job& kept = state_.jobs_.Edit(id);
        kept.set_reason(ld.why);
        state_.Record(batch, kept, absl::StrFormat("lease %d kept: %s", kept.lease().epoch(), ld.why), now_ms);
      }
      break;
    case LeaseFate::kKeep:
      ++state_.counters_.leases_kept;
      planned.erase(id);
      break;
    case LeaseFate::kResize: {
      const Assignment* a = planned.at(id);
      // Its node was drained meanwhile: left to the next round.
      if (!NodesTakePart(*a, d.node_names)) {
        planned.erase(id);
        break;
      }
      const int held_cpus = job.lease().slices_size() > 0 ? job.lease().slices(0).cpu_ids_size() : 0;
      const bool shrinks = WholeCpus(a->slices.empty() ? 0 : a->slices.front().resources.cpus) < held_cpus;
      resizes[shrinks ? 0 : 1].push_back(id);
      break;
    }
    case LeaseFate::kEnd:
      // Re-placed where it can no longer go (a node drained meanwhile):
      // it keeps its lease until a round can place it.
      if (auto p = planned.find(id); p != planned.end() && !NodesTakePart(*p->second, d.node_names)) {
        planned.erase(p);
        break;
      }
      state_.actions().EndLease(state_.jobs_.Edit(id), ld.why, LeaseEndCause::kRound, batch, now_ms);
      break;
  }
}

void RoundDriver::SettleLeases(const RoundWorld& world, const RoundDecisions& d, PlannedByJob& planned,
                               std::vector<std::string> resizes[2], Batch& batch, int64_t now_ms) {
  // A lease that changed since the round read it is left to the next
  // round. (Editing a job does not move it in state_.jobs_: the walk stays valid.)
  for (const auto& [id, job] : state_.jobs_.all()) {
    if (!job.has_lease() || state_.Terminal(job) || job.lease().profiling()) continue;
    auto read = world.held.find(id);
    auto decision = d.leases.find(id);
    if (read == world.held.end() || read->second.lease.epoch() != job.lease().epoch() ||
        decision == d.leases.end()) {
      planned.erase(id);
      continue;
    }
    SettleLease(id, job, decision->second, d, planned, resizes, batch, now_ms);
  }
}

void RoundDriver::QueueTheWaiting(Batch& batch, int64_t now_ms) {
  for (const auto& [id, waiting] : state_.jobs_.all()) {
    if (waiting.state() != v1::JOB_STATE_PENDING) continue;
    v1::Job& job = state_.jobs_.Edit(id);
    const bool for_profile = state_.actions().WantsProfiling(job) && !state_.actions().ProfileWaitOver(job, now_ms);
    // A held job keeps the hold as its reason; one awaiting dependencies
    // is told which when read (waiting_reasons.cc).
    const std::string reason = job.held()                            ? job.reason()
                               : DaemonState::AwaitsDependencies(job) ? "waiting for dependencies"
                               : for_profile                          ? "waiting for a free node to profile on"
                                                                      : "waiting for resources";
    state_.jobs_.Move(job, JobMove::kWait, reason, now_ms);
    state_.Record(batch, job, "queued", now_ms);
  }
}

absl::Status RoundDriver::ApplyRound(const RoundWorld& world, const RoundDecisions& d, int64_t now_ms) {
  const auto start = std::chrono::steady_clock::now();
  // The round's own preemptions need no launch of their own; events that
  // came while it planned still do.
  const bool events_waiting = state_.launch_trigger_.due_at().has_value();
  DaemonState::Change change(state_);
  Batch batch;
  ++state_.round_;
  state_.counters_.rounds++;
  if (!d.planned) return change.Commit(std::move(batch));
  BumpStarved(d.bumped, batch, now_ms);
  PlannedByJob planned;
  for (const Assignment& a : d.plan.assignments) planned[JobIdString(a.job)] = &a;
  // Pass 1: keep or end the current leases, so their ids are known.
  // Resizes in place wait for the leases that end or shrink, whose CPU ids
  // they may grow into.
  std::vector<std::string> resizes[2];  // shrinking, growing
  SettleLeases(world, d, planned, resizes, batch, now_ms);
  for (const std::vector<std::string>& each : resizes) {
    for (const std::string& id : each) {
      state_.actions().ResizeLease(state_.jobs_.Edit(id), *planned.at(id), d.node_names, batch, now_ms);
      planned.erase(id);
    }
  }
  // Pass 2: grant the rest, where the job and its nodes are as the round
  // read them.
  SayWhoTookTheirPlace(world, d, GrantPlanned(d, planned, /*between_rounds=*/false, batch, now_ms), batch, now_ms);
  QueueTheWaiting(batch, now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  // The queue keeps the policy's order for the next round (once stored);
  // jobs submitted while the round planned follow in arrival order.
  state_.jobs_.SetQueueOrder(d.order);
  if (!events_waiting) state_.launch_trigger_.Tried();
  state_.counters_.last_plan_ms = d.plan_ms;
  state_.counters_.last_round_ms =
      d.plan_ms + std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  state_.counters_.round_decision_s.Observe(state_.counters_.last_round_ms / 1000);
  spdlog::debug("round {}: {} placed, {:.3f} ms ({:.3f} planning)", state_.round_, d.first_plan_size,
                state_.counters_.last_round_ms, d.plan_ms);
  return absl::OkStatus();
}

absl::Status RoundDriver::RunRound(int64_t now_ms) {
  auto world = PrepareRound(now_ms);
  if (!world.ok()) return world.status();
  return ApplyRound(*world, PlanRound(*world), now_ms);
}

}  // namespace synergy::daemon
