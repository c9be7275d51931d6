// NodeGateway, a node registering: the processes it reports adopted where
// their lease is current, else stopped; the registration said in the log.
#include "daemon/nodes/node_gateway.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/round/lease_actions.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

absl::StatusOr<int64_t> NodeGateway::RegisterNode(const v1::RegisterNodeRequest& request, int64_t now_ms,
                                                   bool joins) {
  if (auto it = state_.nodes_.find(request.name());
      it != state_.nodes_.end() && it->second.info.alive() &&
      NodeTable::Stale(it->second, request.incarnation(), request.sequence())) {
    // The node gave up on this call and has registered since: what it says
    // is older than what synergyd knows.
    spdlog::info("node {}: registration {} arrived after call {}: stale, ignored", request.name(), request.sequence(),
                 it->second.sequence);
    return state_.config_.heartbeat_interval_ms;
  }
  DaemonState::Change change(state_);
  bool known = false;
  NodeRecord& n = state_.nodes_.Register(request, now_ms, known);
  state_.leases_.ReleaseAll(request.name());
  Batch batch;
  if (joins) batch.joined_nodes[request.name()] = now_ms;
  const int not_current = AdoptReported(request, n, batch, now_ms);
  // One line per registration, however many processes it lists.
  if (not_current > 0) {
    spdlog::warn("node {}: {} process(es) of leases that are not current: stopping them", request.name(), not_current);
  }
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  state_.NoteLaunchEvent(now_ms);
  if (joins) {
    state_.nodes_.NoteJoined(request.name(), now_ms);
    spdlog::info("node {} joined with a join credential; it holds its own credential from now on", request.name());
  }
  SayRegistered(request, known);
  return state_.config_.heartbeat_interval_ms;
}

int NodeGateway::AdoptReported(const v1::RegisterNodeRequest& request, NodeRecord& n, Batch& batch, int64_t now_ms) {
  int not_current = 0;
  for (const v1::RunningProcess& p : request.running()) {
    n.processes.insert({p.job_id(), p.epoch()});
    auto it = state_.jobs_.find(p.job_id());
    bool adopted = false;
    // A finished or cancelled job's process is adopted too, so that its ids
    // stay held until it exits.
    if (it != state_.jobs_.end() && it->second.has_lease() && it->second.lease().epoch() == p.epoch()) {
      v1::Job& job = state_.jobs_.Edit(p.job_id());
      for (const v1::LeaseSlice& s : job.lease().slices()) {
        if (s.node() != request.name()) continue;
        state_.leases_.Hold(request.name(), {p.job_id(), p.epoch()},
                     {std::vector<int>(s.gpu_ids().begin(), s.gpu_ids().end()),
                      std::vector<int>(s.cpu_ids().begin(), s.cpu_ids().end())});
        adopted = true;
        LeaseTable::Launch& launch = state_.leases_.EditLaunch(p.job_id());
        if (p.queued() && launch.launched_on.empty()) {
          // Taken by the node's executor, not started (queued in Slurm):
          // confirmed by the report that shows it running.
          launch.ordered_on.emplace(request.name(), 1);
          launch.adopt_deadline_ms = 0;
          n.queued.insert({p.job_id(), p.epoch()});
          continue;
        }
        if (launch.ordered_on.count(request.name())) {
          // Ordered before the node registered again: this is its report.
          ConfirmLaunch(job, request.name(), batch, now_ms);
          continue;
        }
        if (launch.launched_on.empty()) launch.service_from_ms = now_ms;
        launch.launched_on.insert(request.name());
        launch.adopt_deadline_ms = 0;
        state_.Record(batch, job, absl::StrFormat("lease %d re-adopted on %s", p.epoch(), request.name()), now_ms);
      }
    }
    if (!adopted) {
      n.unknown_processes = true;
      state_.actions().SendStop(request.name(), p.job_id(), p.epoch(), state_.config_.lease_grace_ms());
      ++not_current;
    }
  }
  return not_current;
}

void NodeGateway::SayRegistered(const v1::RegisterNodeRequest& request, bool known) const {
  spdlog::info("node {} {}: {} GPUs{}{}, {} CPUs, {:.1f} GB, cgroups: {}", request.name(),
               known ? "re-registered" : "registered", request.resources().gpu_ids_size(),
               request.resources().gpu_type().empty() ? "" : " " + request.resources().gpu_type(),
               request.resources().gpus_declared() ? " (declared)" : "",
               request.resources().cpu_ids_size(), request.resources().mem_gb(), request.cgroups());
  // Rounds run every model at speed 1 on a type the zoo has no speed for
  // (daemon/round/typed_views.h): said, so that the operator adds the speeds.
  const std::string& type = request.resources().gpu_type();
  std::vector<std::string> unknown;
  for (int m = 0; m < static_cast<int>(state_.zoo_.models().size()); ++m) {
    if (!type.empty() && !state_.zoo_.GpuSpeed(m, type)) unknown.push_back(state_.zoo_.model(m).name);
  }
  if (!unknown.empty()) {
    spdlog::warn("node {}: the model zoo has no gpu_speed for GPU type {} ({} of {} models: {}); rounds take "
                 "those models to run there as on the type they were profiled on",
                 request.name(), type, unknown.size(), state_.zoo_.models().size(), absl::StrJoin(unknown, ", "));
  }
}
}  // namespace synergy::daemon
