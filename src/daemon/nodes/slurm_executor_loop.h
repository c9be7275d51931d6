#pragma once
// synergyd's side of the Slurm executor (executor: slurm; docs/slurm.md):
// the thread that runs slurm::SlurmExecutor's step every
// heartbeat_interval_ms, and the in-process node endpoint it speaks to.
// Each request from the executor is checked as the node RPC's would be
// (service/request_validation.h) and applied under the daemon's lock; Slurm
// is read and commanded outside it.
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "daemon/server/config.h"
#include "daemon/api/services.h"
#include "slurm/slurm_cli.h"
#include "slurm/slurm_executor.h"

namespace synergy::daemon {

class SlurmExecutorLoop {
 public:
  // Starts the thread; an error (the log folder cannot be made) starts
  // nothing. `guarded` outlives the loop.
  // `next_round_unix_ms`: when the next round is due (0: not known); Slurm
  // is read in the step before it, whatever slurm.read_interval_s says.
  static absl::StatusOr<std::unique_ptr<SlurmExecutorLoop>> Start(const DaemonConfig& config, Guarded& guarded,
                                                                 std::function<int64_t()> next_round_unix_ms = {});
  // Stops the thread (after its current step). Slurm's jobs run on.
  ~SlurmExecutorLoop();
  // Since when Slurm cannot be read (unix ms; 0 = it answers): /readyz
  // and /metrics say so. Any thread.
  int64_t unreadable_since_ms() const { return unreadable_since_ms_.load(); }
  int64_t outages() const { return outages_.load(); }
  // What Slurm's commands cost (slurm::kSlurmCommands order).
  const slurm::SlurmCli& cli() const { return *cli_; }

 private:
  SlurmExecutorLoop() = default;
  void Run();

  int interval_ms_ = 1000;
  std::function<int64_t()> next_round_unix_ms_;
  int64_t read_before_round_ms_ = 0;  // the round whose read was asked for
  std::unique_ptr<slurm::SlurmCli> cli_;
  std::unique_ptr<slurm::NodeEndpoint> endpoint_;
  std::unique_ptr<slurm::SlurmExecutor> executor_;
  absl::Notification stop_;  // the destructor's: the thread ends
  std::atomic<int64_t> unreadable_since_ms_{0};
  std::atomic<int64_t> outages_{0};
  std::thread thread_;
};

// Whom a user's Slurm jobs run as under `rule` (node/job_account.h): the
// mapped account's uid, primary group and name, or synergyd's own where
// the rule keeps jobs on it.
absl::StatusOr<slurm::JobIdentity> SlurmIdentityFor(const std::string& user, const node::AccountRule& rule);

}  // namespace synergy::daemon
