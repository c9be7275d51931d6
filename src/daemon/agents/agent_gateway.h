#pragma once
// synergyd's agent gateway: what a job's agent says under its lease and
// is told back. An agent registers (its resume point and allocation),
// reports progress (the board takes most reports without the daemon's
// lock; the rest, which carry news of resizes or come for a lease that is
// ending, land here and learn of the lease's end), confirms a checkpoint
// (which may end an ending lease at once) and sends the profile it
// measured under a profiling lease (agent_reports.cc). A stale epoch is
// FAILED_PRECONDITION throughout.
//
// It acts on DaemonState's tables through the state's changes (a friend
// of it); DaemonState's agent API is this gateway's, under the daemon's
// lock.
#include "absl/status/statusor.h"
#include "daemon/state/daemon_state.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class AgentGateway {
 public:
  explicit AgentGateway(DaemonState& state) : state_(state) {}
  AgentGateway(const AgentGateway&) = delete;
  AgentGateway& operator=(const AgentGateway&) = delete;

  // DaemonState's RegisterAgent, ReportProgress, ConfirmCheckpoint and
  // SubmitProfile (see there).
  absl::StatusOr<v1::AgentWelcome> RegisterAgent(const v1::AgentHello& hello, int64_t now_ms);
  absl::StatusOr<v1::ProgressReply> ReportProgress(const v1::ProgressReport& report, int64_t now_ms);
  absl::Status ConfirmCheckpoint(const v1::CheckpointDone& done, int64_t now_ms);
  absl::Status SubmitProfile(const v1::MeasuredProfile& profile, int64_t now_ms);

 private:
  using JobRuntime = JobTable::Runtime;
  DaemonState& state_;
};

}  // namespace synergy::daemon
