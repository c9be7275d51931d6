#pragma once
// Runs one of Slurm's commands (sinfo, squeue, sbatch, scancel) for the
// Slurm executor and returns what it wrote. The only place the executor
// starts processes.
//
// The command runs with exactly the environment given (never synergyd's
// own, which holds its credentials), its standard input from `input`
// (held in memory, not a pipe: a command that exits without reading it
// cannot stop synergyd with SIGPIPE), no other file descriptor of
// synergyd's, default signal dispositions and an empty signal mask
// (synergyd blocks SIGTERM in every thread for its signal thread; a
// command would inherit that). A command that runs past `timeout` or
// writes more than `max_output_bytes` is killed: a hung slurmctld must not
// hold the executor's thread, nor a runaway output its memory.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace synergy::slurm {

struct CommandOutput {
  int exit_code = 0;  // its exit status; -1 when a signal ended it
  int signal = 0;
  std::string out;
  std::string err;
};

// argv[0] is a path (not looked up in PATH). Errors: the command could
// not be started (its errno), ran past `timeout` (DeadlineExceeded), or
// wrote more than `max_output_bytes` to either stream (ResourceExhausted);
// each names argv[0]. A command that ran and failed is not an error: its
// exit code and output are returned.
absl::StatusOr<CommandOutput> RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                         const std::string& input, std::chrono::milliseconds timeout,
                                         size_t max_output_bytes);

}  // namespace synergy::slurm
