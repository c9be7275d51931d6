// NodeGateway, launches: the orders that start a lease's ranks on a node,
// repeated every heartbeat until the node's report shows the process
// (docs/protocol.md), and the confirmation that makes a lease launched.
#include "daemon/nodes/node_gateway.h"

#include "absl/strings/str_format.h"
#include "daemon/round/lease_actions.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {
namespace {

LeaseTable::HeldIds IdsOf(const v1::LeaseSlice& s) {
  return {std::vector<int>(s.gpu_ids().begin(), s.gpu_ids().end()),
          std::vector<int>(s.cpu_ids().begin(), s.cpu_ids().end())};
}

// The ids on a node that processes (of current and ending leases) hold or
// were ordered to: a first launch waits until its slice's ids are free.
struct BusyIds {
  std::set<int> gpus, cpus;
  bool Free(const v1::LeaseSlice& s) const {
    for (int g : s.gpu_ids()) {
      if (gpus.count(g)) return false;
    }
    for (int c : s.cpu_ids()) {
      if (cpus.count(c)) return false;
    }
    return true;
  }
  void Take(const v1::LeaseSlice& s) {
    gpus.insert(s.gpu_ids().begin(), s.gpu_ids().end());
    cpus.insert(s.cpu_ids().begin(), s.cpu_ids().end());
  }
};

BusyIds BusyOn(const LeaseTable& leases, const std::string& node) {
  BusyIds busy;
  for (const auto& [lease, ids] : leases.HeldOn(node)) {
    busy.gpus.insert(ids.gpus.begin(), ids.gpus.end());
    busy.cpus.insert(ids.cpus.begin(), ids.cpus.end());
  }
  return busy;
}

}  // namespace

std::vector<v1::LaunchOrder> NodeGateway::LaunchesFor(NodeRecord& n, Batch& batch, int64_t now_ms) {
  std::vector<v1::LaunchOrder> out;
  if (n.unknown_processes) return out;  // their ids are unknown: wait for them to stop
  if (n.info.leaving() || !n.info.alive()) return out;
  const std::string& node = n.info.name();
  BusyIds busy = BusyOn(state_.leases_, node);
  std::vector<std::string> never_started;
  // The node's current leases (a copy: ending one edits the index).
  const std::set<std::string> here = state_.leases_.CurrentOn(node);
  for (const std::string& id : here) {
    const v1::Job& job = state_.jobs_.at(id);
    if (state_.Terminal(job)) continue;
    const LeaseTable::Launch& launch = state_.leases_.LaunchOf(id);
    if (launch.launched_on.count(node) || launch.exited_on.count(node)) continue;
    // Launched before synergyd restarted: adopted when its node reports the
    // process, else requeued under a new lease at the deadline. Never
    // launched again under the same lease: its first process may have run
    // (and ended unseen, as a Slurm job purged while synergyd was down).
    if (launch.adopt_deadline_ms > 0) continue;
    if (state_.leases_.AnyEnding(id)) continue;  // its previous lease's processes still run
    const v1::LeaseSlice* slice = SliceOn(job.lease(), node);
    if (slice == nullptr) continue;
    const int64_t epoch = job.lease().epoch();
    if (auto ordered = launch.ordered_on.find(node); ordered != launch.ordered_on.end()) {
      // Taken and queued by the node's executor: not lost, not started yet.
      if (n.queued.count({id, epoch})) continue;
      // Ordered, and this report does not show it: the reply was lost or
      // came after the node stopped waiting. The node starts a lease once,
      // so the order goes again; its ids stay this lease's.
      if (ordered->second >= DaemonState::kLaunchOrdersBeforeRequeue) {
        never_started.push_back(id);
        continue;
      }
      const int orders = ++state_.leases_.EditLaunch(id).ordered_on[node];
      state_.leases_.Hold(node, {id, epoch}, IdsOf(*slice));
      spdlog::info("{} lease {}: launch order sent again to {} (order {} of {}: its reports do not show the "
                   "process yet)", id, epoch, node, orders, DaemonState::kLaunchOrdersBeforeRequeue);
      out.push_back(LaunchOrderFor(job, *slice));
      continue;
    }
    if (!busy.Free(*slice)) continue;  // an ending lease still holds them
    LeaseTable::Launch& first = state_.leases_.EditLaunch(id);
    // An attempt is counted when it is first ordered: a lease that ends
    // before a report shows its process may still have run.
    if (first.ordered_on.empty() && first.launched_on.empty()) {
      v1::Job& attempted = state_.jobs_.Edit(id);
      attempted.set_attempts(attempted.attempts() + 1);
    }
    first.ordered_on[node] = 1;
    state_.leases_.Hold(node, {id, epoch}, IdsOf(*slice));
    busy.Take(*slice);
    spdlog::debug("{} lease {}: launch ordered on {}", id, epoch, node);
    out.push_back(LaunchOrderFor(job, *slice));
  }
  WithdrawNeverStarted(node, never_started, batch, now_ms);
  return out;
}

void NodeGateway::WithdrawNeverStarted(const std::string& node, const std::vector<std::string>& jobs, Batch& batch,
                                       int64_t now_ms) {
  for (const std::string& id : jobs) {
    // This report, sent after the node carried out the last reply it got,
    // does not show the process, and this reply orders nothing more: there
    // is nothing to stop. The lease is withdrawn; the job is requeued.
    state_.leases_.EditLaunch(id).ordered_on.erase(node);
    state_.actions().EndLease(state_.jobs_.Edit(id),
             absl::StrFormat("node %s did not report it started after %d launch orders", node,
                             DaemonState::kLaunchOrdersBeforeRequeue),
             LeaseEndCause::kNotStarted, batch, now_ms);
  }
}

v1::LaunchOrder NodeGateway::LaunchOrderFor(const v1::Job& job, const v1::LeaseSlice& s) const {
  const v1::Lease& lease = job.lease();
  const std::string& id = job.id();
  v1::LaunchOrder order;
  order.set_job_id(id);
  order.set_epoch(lease.epoch());
  *order.mutable_command() = job.spec().command();
  *order.mutable_env() = job.spec().env();
  auto& env = *order.mutable_env();
  env["SYNERGY_SCHEDULER"] = state_.config_.listen;
  env["SYNERGY_JOB_ID"] = id;
  env["SYNERGY_AGENT_TOKEN"] = state_.authenticator_->LeaseCredential(id, lease.epoch());
  env["SYNERGY_LEASE_EPOCH"] = std::to_string(lease.epoch());
  env["SYNERGY_GPUS"] = std::to_string(s.gpu_ids_size());
  env["SYNERGY_CPUS"] = std::to_string(s.cpu_ids_size());
  env["SYNERGY_MEM_GB"] = absl::StrFormat("%.3f", s.mem_gb());
  env["SYNERGY_ITERATIONS"] = std::to_string(job.spec().iterations());
  env["SYNERGY_RESUME_ITERATION"] = std::to_string(job.checkpoint_iteration());
  env["SYNERGY_CHECKPOINT"] = job.checkpoint_path();
  env["SYNERGY_RANK"] = std::to_string(s.rank());
  env["SYNERGY_PROFILING"] = lease.profiling() ? "1" : "0";
  env["SYNERGY_WORLD_SIZE"] = std::to_string(lease.slices_size());
  if (!job.array_id().empty()) {
    env["SYNERGY_ARRAY_JOB_ID"] = job.array_id();
    env["SYNERGY_ARRAY_INDEX"] = std::to_string(job.array_index());
  }
  const v1::LeaseSlice& master = lease.slices(0);
  auto m = state_.nodes_.find(master.node());
  env["SYNERGY_MASTER_ADDR"] = m != state_.nodes_.end() ? m->second.info.address() : "127.0.0.1";
  env["SYNERGY_MASTER_PORT"] = std::to_string(29500 + (lease.epoch() % 1000));
  *order.mutable_gpu_ids() = s.gpu_ids();
  *order.mutable_cpu_ids() = s.cpu_ids();
  order.set_mem_gb(s.mem_gb());
  order.set_user(job.owner());
  order.set_tenant(job.spec().tenant());
  return order;
}

void NodeGateway::ConfirmLaunch(v1::Job& job, const std::string& node, Batch& batch, int64_t now_ms) {
  LeaseTable::Launch& launch = state_.leases_.EditLaunch(job.id());
  if (launch.launched_on.count(node)) return;
  launch.ordered_on.erase(node);
  launch.queued_on.erase(node);
  const bool first = launch.launched_on.empty();
  launch.launched_on.insert(node);
  const v1::Lease& lease = job.lease();
  if (first) {
    // The lease's time held and the job's wait count from the first
    // report of a process, not from the order.
    launch.service_from_ms = now_ms;
    if (job.first_launch_unix_ms() == 0) {
      job.set_first_launch_unix_ms(now_ms);
      state_.counters_.queue_wait_s.Observe((now_ms - job.submitted_unix_ms()) / 1000.0);
    }
    if (!lease.profiling()) {
      state_.jobs_.Move(job, JobMove::kLaunch, absl::StrFormat("running under lease %d", lease.epoch()), now_ms);
    }
  }
  state_.Record(batch, job, absl::StrFormat("lease %d launched on %s (attempt %d)", lease.epoch(), node, job.attempts()),
         now_ms);
}

}  // namespace synergy::daemon
