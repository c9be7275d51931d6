#pragma once
// What the Slurm executor asks of Slurm: its nodes and jobs as JSON, and
// three actions on a job. SlurmControl is the seam (tests give a scripted
// Slurm); SlurmCli runs Slurm's own commands (sinfo, squeue, sbatch,
// scancel) through RunCommand, each with the executor's fixed environment
// (SLURM_CONF, PATH) and a time limit.
#include <atomic>
#include <chrono>
#include <iterator>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "slurm/slurm_launch.h"

namespace synergy::slurm {

class SlurmControl {
 public:
  virtual ~SlurmControl() = default;
  virtual absl::StatusOr<std::string> NodesJson() = 0;  // sinfo --json
  virtual absl::StatusOr<std::string> JobsJson() = 0;   // squeue --json
  // Submits `call`; returns the Slurm job id. Unavailable or
  // DeadlineExceeded when it is not known whether Slurm took the job
  // (sbatch could not reach slurmctld, or did not answer in time);
  // FailedPrecondition, with sbatch's own words, when Slurm refused it.
  virtual absl::StatusOr<int64_t> Submit(const SbatchCall& call) = 0;
  // `signal` (TERM, KILL...) to the job's batch step: the command the
  // batch script execs (scancel --signal --batch).
  virtual absl::Status Signal(int64_t job, const std::string& signal) = 0;
  // Ends the job, waiting or running (scancel).
  virtual absl::Status Cancel(int64_t job) = 0;
};

struct SlurmCliOptions {
  std::string bin_dir = "/usr/bin";  // where sinfo, squeue, sbatch and scancel are
  // The environment every command runs with (SLURM_CONF, PATH).
  std::vector<std::pair<std::string, std::string>> env;
  std::chrono::milliseconds timeout{30000};
  std::string partition;  // what sinfo and squeue list, where Slurm filters JSON (23.02 and later)
};

// What each of Slurm's commands cost synergyd: calls, failures, seconds
// waited and bytes read from it. Read from any thread (metrics).
struct CommandTally {
  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> failures{0};
  std::atomic<int64_t> micros{0};
  std::atomic<int64_t> bytes{0};
};
inline constexpr const char* kSlurmCommands[] = {"sinfo", "squeue", "sbatch", "scancel"};

class SlurmCli final : public SlurmControl {
 public:
  explicit SlurmCli(SlurmCliOptions options) : options_(std::move(options)) {}
  // The tally of kSlurmCommands[i].
  const CommandTally& tally(size_t i) const { return tallies_[i]; }
  absl::StatusOr<std::string> NodesJson() override;
  absl::StatusOr<std::string> JobsJson() override;
  absl::StatusOr<int64_t> Submit(const SbatchCall& call) override;
  absl::Status Signal(int64_t job, const std::string& signal) override;
  absl::Status Cancel(int64_t job) override;

 private:
  // Runs bin_dir/<name> with `args`; a non-zero exit is FailedPrecondition
  // with the command's first line of stderr.
  absl::StatusOr<std::string> Run(const std::string& name, const std::vector<std::string>& args,
                                  const std::vector<std::string>& env, const std::string& input);
  SlurmCliOptions options_;
  CommandTally tallies_[std::size(kSlurmCommands)];
};

// sbatch --parsable's answer ("123" or "123;cluster") as the job id; an
// error naming the text otherwise.
absl::StatusOr<int64_t> ParseSbatchAnswer(const std::string& text);

}  // namespace synergy::slurm
