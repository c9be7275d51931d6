#pragma once
// How synergyd's Slurm executor (issue 19, docs/slurm.md) turns Slurm's
// nodes into the resources a node registers and a lease's launch order into
// one `sbatch`. Pure: the executor runs what these build.
//
// A launch becomes a batch job on exactly the planned node (--nodelist,
// one node, one task), with the planned GPUs (--gres=gpu:N), CPUs
// (--cpus-per-task, bound by Slurm's task/affinity) and memory (--mem, in
// MB), named after the lease (slurm_json.h SlurmJobName), its output in
// the executor's log folder. The job's environment is exactly the lease's
// (its SYNERGY_* variables and the job's own) and what Slurm needs to find
// its cluster: sbatch is run with that environment and --export=ALL, never
// synergyd's own, which holds its credentials. The command is exec'd from
// a two-line batch script, every argument quoted for sh.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "slurm/slurm_json.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::slurm {

// The resources `node` registers with: GPU ids 0..gpus-1 and CPU ids
// 0..cpus-1 (Slurm chooses which device and cores; the counts are what
// the round plans with), its RealMemory in GB (1 GB = 1024 MB), and the
// type its gres names where that is a GPU type's name.
v1::NodeResources ResourcesOfSlurmNode(const SlurmNode& node);

struct SbatchOptions {
  std::string partition;  // the partition synergyd owns (its config)
  std::string log_dir;    // where each job's output goes: <log_dir>/<job>-<epoch>-<node>.out
  // Run the job as the lease's owner (--uid): synergyd runs as SlurmUser
  // (root in the tests), which Slurm lets submit for any user.
  bool as_owner = true;
  // Variables sbatch itself needs (SLURM_CONF, PATH), added to the job's.
  std::vector<std::pair<std::string, std::string>> slurm_env;
};

struct SbatchCall {
  std::vector<std::string> argv;  // argv[0] = "sbatch"
  std::vector<std::string> env;   // NAME=value, the whole environment sbatch runs with
  std::string script;             // sbatch's standard input
};

// The sbatch for `order` on `node`. An error (naming the field) where the
// order cannot be one: no command, no user while as_owner, an environment
// variable Slurm would not pass intact (a name that is not [A-Za-z_][A-Za-z0-9_]*).
absl::StatusOr<SbatchCall> SbatchFor(const v1::LaunchOrder& order, const std::string& node,
                                     const SbatchOptions& options);

// `text` as one word for sh: single-quoted, each ' written '\''.
std::string ShellQuote(const std::string& text);

}  // namespace synergy::slurm
