// LeaseActions, resize in place: a round that keeps a job's GPUs and node
// but changes its CPUs or memory amends the lease (a stored revision)
// instead of ending it, when the job's agent follows resizes.
//
// The order of a resize, so that it never kills the job:
//  1. the round stores the new revision; a lower memory limit is kept at
//     the old one for now (the slice's mem_limit_gb);
//  2. the node's next heartbeat gets a ResizeOrder and changes the cgroup
//     (a growth waits while an ending lease's process still has the CPU
//     ids); it reports the revision it applied;
//  3. only then the agent hears of the new allocation (ProgressReply), so a
//     job starts more workers only once its CPUs and memory are there;
//  4. the agent confirms the revision once its callback has returned (it
//     has shed workers): the memory limit drops to mem_gb, or lease_grace_s
//     after the node applied it without a confirmation.
// The CPU ids a shrink frees stay held until the node reports it applied
// it, so no peer is launched on them before.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "daemon/round/lease_actions.h"
#include "daemon/round/round_input.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {
namespace {

constexpr double kMemEpsilonGb = 1e-6;

// The memory limit a slice's node is to enforce now (0 stored: mem_gb).
double MemLimitGb(const v1::LeaseSlice& s) { return s.mem_limit_gb() > 0 ? s.mem_limit_gb() : s.mem_gb(); }

// Every slice's memory limit down to its memory (the job has shed, or may
// no longer wait).
void LowerMemoryLimits(v1::Lease& lease) {
  for (v1::LeaseSlice& s : *lease.mutable_slices()) {
    if (MemLimitGb(s) > s.mem_gb() + kMemEpsilonGb) s.set_mem_limit_gb(s.mem_gb());
  }
}

}  // namespace

bool LeaseActions::ResizeLease(v1::Job& job, const Assignment& planned, const std::vector<std::string>& node_names,
                              Batch& batch, int64_t now_ms) {
  const v1::Lease before = job.lease();
  if (before.slices_size() != 1 || planned.slices.size() != 1) return false;
  const Slice& want = planned.slices.front();
  const v1::LeaseSlice& held = before.slices(0);
  if (node_names[want.server] != held.node()) return false;
  v1::Lease after = before;
  v1::LeaseSlice& slice = *after.mutable_slices(0);
  // The CPU ids it holds first (its data workers run there), then free ones.
  const int want_cpus = WholeCpus(want.resources.cpus);
  slice.clear_cpu_ids();
  for (int i = 0; i < held.cpu_ids_size() && slice.cpu_ids_size() < want_cpus; ++i) slice.add_cpu_ids(held.cpu_ids(i));
  if (slice.cpu_ids_size() < want_cpus) {
    const v1::NodeResources free = FreeIds(held.node());
    for (int c : free.cpu_ids()) {
      if (slice.cpu_ids_size() >= want_cpus) break;
      slice.add_cpu_ids(c);
    }
    std::sort(slice.mutable_cpu_ids()->begin(), slice.mutable_cpu_ids()->end());
  }
  const double mem = want.resources.mem_gb;
  const double limit_before = MemLimitGb(held);
  slice.set_mem_gb(mem);
  // Lower only once the job has shed; higher at once.
  slice.set_mem_limit_gb(std::max(mem, limit_before));
  const bool same_cpus = slice.cpu_ids_size() == held.cpu_ids_size() &&
                         std::equal(slice.cpu_ids().begin(), slice.cpu_ids().end(), held.cpu_ids().begin());
  if (same_cpus && std::abs(mem - held.mem_gb()) <= kMemEpsilonGb) return false;
  after.set_revision(before.revision() + 1);
  after.set_speedup(planned.speedup);
  after.set_at_ideal(planned.at_ideal);
  after.set_resized_unix_ms(now_ms);
  state_.leases_.AmendCurrent(before, after);
  *job.mutable_lease() = after;
  job.set_resizes(job.resizes() + 1);
  ++state_.counters_.leases_resized;
  state_.Record(batch, job,
         absl::StrFormat("lease %d resized in place (revision %d): cpus %d -> %d, mem %.2f -> %.2f GB%s",
                         after.epoch(), after.revision(), held.cpu_ids_size(), slice.cpu_ids_size(), held.mem_gb(),
                         mem, slice.mem_limit_gb() > mem + kMemEpsilonGb ? " (limit lowered once the job has shed)" : ""),
         now_ms);
  return true;
}

std::vector<v1::ResizeOrder> LeaseActions::ResizesFor(const v1::HeartbeatRequest& request, int64_t now_ms) {
  std::vector<v1::ResizeOrder> out;
  const std::string& node = request.name();
  for (const v1::RunningProcess& p : request.running()) {
    auto it = state_.jobs_.find(p.job_id());
    if (it == state_.jobs_.end() || state_.Terminal(it->second) || !it->second.has_lease()) continue;
    const v1::Lease& lease = it->second.lease();
    if (lease.epoch() != p.epoch() || lease.revision() == 0) continue;
    const v1::LeaseSlice* slice = SliceOn(lease, node);
    if (slice == nullptr || !state_.leases_.Holds(node, {p.job_id(), p.epoch()})) continue;
    const double limit = MemLimitGb(*slice);
    const std::vector<int> cpus(slice->cpu_ids().begin(), slice->cpu_ids().end());
    const std::vector<int> gpus(slice->gpu_ids().begin(), slice->gpu_ids().end());
    if (p.revision() == lease.revision() && std::abs(p.mem_limit_gb() - limit) <= kMemEpsilonGb) {
      if (state_.leases_.LaunchOf(p.job_id()).node_revision < lease.revision()) {
        LeaseTable::Launch& launch = state_.leases_.EditLaunch(p.job_id());
        launch.node_revision = lease.revision();
        // Its agent is told now (published again once kept); a lowered
        // memory limit waits from here, not from the round, for it to shed.
        if (limit > slice->mem_gb() + kMemEpsilonGb && launch.shed_deadline_ms == 0) {
          launch.shed_deadline_ms = now_ms + state_.config_.lease_grace_ms();
        }
        state_.jobs_.Edit(p.job_id());
        // The ids it no longer has are free to launch on only now.
        state_.leases_.Hold(node, {p.job_id(), p.epoch()}, {gpus, cpus});
      }
      continue;
    }
    // A growth into ids another process on the node still runs on (an
    // ending lease checkpointing) waits for its exit, as a launch would.
    bool busy = false;
    for (const auto& [other, ids] : state_.leases_.HeldOn(node)) {
      if (other.first == p.job_id()) continue;
      for (int c : slice->cpu_ids()) busy = busy || std::count(ids.cpus.begin(), ids.cpus.end(), c) > 0;
    }
    if (busy) continue;
    v1::ResizeOrder order;
    order.set_job_id(p.job_id());
    order.set_epoch(p.epoch());
    order.set_revision(lease.revision());
    *order.mutable_cpu_ids() = slice->cpu_ids();
    order.set_mem_limit_gb(limit);
    // Until the node reports it applied, the process may run on the ids it
    // had and those it gets: no launch goes to either.
    const auto held = state_.leases_.HeldOn(node).find({p.job_id(), p.epoch()});
    std::vector<int> both = cpus;
    if (held != state_.leases_.HeldOn(node).end()) {
      for (int c : held->second.cpus) {
        if (std::find(both.begin(), both.end(), c) == both.end()) both.push_back(c);
      }
    }
    state_.leases_.Hold(node, {p.job_id(), p.epoch()}, {gpus, both});
    out.push_back(std::move(order));
  }
  return out;
}

absl::Status LeaseActions::NoteResizeReport(const v1::ProgressReport& report, int64_t now_ms) {
  auto it = state_.jobs_.find(report.job_id());
  if (it == state_.jobs_.end() || state_.Terminal(it->second) || !it->second.has_lease()) return absl::OkStatus();
  const v1::Lease& lease = it->second.lease();
  if (lease.epoch() != report.epoch()) return absl::OkStatus();
  // Slurm cannot change a running job's CPUs: under it no lease is resizable.
  const bool learns_resizable = report.can_resize() && !lease.resizable() && state_.config_.executor != "slurm";
  // A revision counts as applied only once the agent can have heard of it.
  const int64_t applied = std::min(report.applied_revision(), state_.leases_.LaunchOf(report.job_id()).node_revision);
  const bool learns_applied = applied > lease.applied_revision();
  if (!learns_resizable && !learns_applied) return absl::OkStatus();
  DaemonState::Change change(state_);
  Batch batch;
  v1::Job& job = state_.jobs_.Edit(report.job_id());
  v1::Lease& amended = *job.mutable_lease();
  if (learns_resizable) amended.set_resizable(true);
  if (learns_applied) {
    amended.set_applied_revision(applied);
    if (applied == amended.revision()) {
      LowerMemoryLimits(amended);
      state_.leases_.EditLaunch(job.id()).shed_deadline_ms = 0;
    }
    state_.Record(batch, job, absl::StrFormat("lease %d: the job applied revision %d", amended.epoch(), applied), now_ms);
    // The CPU ids a shrink gave up are free now.
    state_.NoteLaunchEvent(now_ms);
  } else {
    batch.PutJob(job);
  }
  return change.Commit(std::move(batch));
}

void LeaseActions::LowerOverdueMemoryLimits(Batch& batch, int64_t now_ms) {
  std::vector<std::string> overdue;
  for (const auto& [id, launch] : state_.leases_.all_launches()) {
    if (launch.shed_deadline_ms > 0 && now_ms >= launch.shed_deadline_ms) overdue.push_back(id);
  }
  for (const std::string& id : overdue) {
    state_.leases_.EditLaunch(id).shed_deadline_ms = 0;
    v1::Job& job = state_.jobs_.Edit(id);
    if (!job.has_lease()) continue;
    LowerMemoryLimits(*job.mutable_lease());
    state_.Record(batch, job,
           absl::StrFormat("lease %d: revision %d not confirmed within %g s; memory limit lowered now",
                           job.lease().epoch(), job.lease().revision(), state_.config_.lease_grace_s),
           now_ms);
  }
}

void LeaseActions::TellAllocation(const v1::Job& job, int rank, v1::ProgressReply& reply) const {
  if (!job.has_lease() || job.lease().revision() == 0) return;
  if (state_.leases_.LaunchOf(job.id()).node_revision < job.lease().revision()) return;
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    if (s.rank() != rank) continue;
    reply.set_revision(job.lease().revision());
    *reply.mutable_cpu_ids() = s.cpu_ids();
    reply.set_mem_gb(s.mem_gb());
  }
}

}  // namespace synergy::daemon
