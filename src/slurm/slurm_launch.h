#pragma once
// How synergyd's Slurm executor (issue 19, docs/slurm.md) turns Slurm's
// nodes into the resources a node registers and a lease's launch order into
// one `sbatch`. Pure: the executor runs what these build.
//
// A launch becomes a batch job on exactly the planned node (--nodelist,
// one node, one task), with the planned GPUs (--gres=gpu:N), CPUs
// (--cpus-per-task, bound by Slurm's task/affinity) and memory (--mem, in
// MB), named after the lease (slurm_json.h SlurmJobName), its output in
// the executor's log folder, run as its owner's numeric uid and primary
// group, charged to the account and QOS the config maps its owner or
// tenant to (SbatchOptions::account, ::qos), and never
// requeued by Slurm (synergyd requeues; a Slurm requeue would run the
// lease twice).
// sbatch itself runs with a fixed environment (SbatchOptions::slurm_env:
// SLURM_CONF, PATH) and --export=NONE: nothing of the lease reaches sbatch
// (LD_PRELOAD, SBATCH_*, SLURM_CONF of the job's own would change what
// sbatch does, as root), and nothing of synergyd's own environment, which
// holds its credentials, reaches the job. The lease's variables (its
// SYNERGY_* and the spec's env) are exported by the batch script, every
// value quoted for sh, before it execs the command word for word.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "slurm/slurm_json.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::slurm {

// The resources `node` registers with: GPU ids 0..gpus-1 and CPU ids
// 0..cpus-1 (Slurm chooses which device and cores; the counts are what
// the round plans with), its RealMemory in GB (1 GB = 1024 MB), and the
// type its gres names where that is a GPU type's name. At most as many
// GPUs as CPUs (F8 of the site review): no slice is ever planned with 0
// CPUs, which Slurm cannot run as planned.
v1::NodeResources ResourcesOfSlurmNode(const SlurmNode& node);

// Whom a lease's Slurm job runs as: the owner's local account (node/
// job_account.h's rule), by number so that Slurm cannot read a name of its
// own, with its primary group (Slurm adds the account's supplementary
// groups itself), and the name of its output folder under log_dir.
struct JobIdentity {
  int64_t uid = 0;
  int64_t gid = 0;
  std::string folder;  // the account's name: one path component
};

struct SbatchOptions {
  std::string partition;  // the partition synergyd owns (its config)
  // Each job's output: <log_dir>/<account>/<node>/<job>.<epoch>.out and
  // .err, in folders the executor makes for the account, owned by it and
  // 0700 (output_folders.h): no user reads another's output, and no folder
  // is shared and writable.
  std::string log_dir;
  std::string work_dir;   // where each job starts (--chdir); "" = Slurm's default
  // The environment sbatch runs with (SLURM_CONF, PATH): the executor's,
  // fixed, never the lease's.
  std::vector<std::pair<std::string, std::string>> slurm_env;
  // Uid 0 may be given (tests on a machine without other accounts).
  bool allow_root_jobs = false;
  // Slurm's --account and --qos of a lease's job: the owner's entry, else
  // the job tenant's, else none (Slurm's default for the uid).
  struct Charges {
    std::map<std::string, std::string> of_user;
    std::map<std::string, std::string> of_tenant;
  };
  Charges account;
  Charges qos;
};

// What `charges` gives `user`'s job in `tenant` ("" none).
std::string ChargeOf(const SbatchOptions::Charges& charges, const std::string& user, const std::string& tenant);

struct SbatchCall {
  std::vector<std::string> argv;  // argv[0] = "sbatch"
  std::vector<std::string> env;   // NAME=value, the whole environment sbatch runs with
  std::string script;             // sbatch's standard input
};

// The sbatch for `order` on `node`, run as `who` (--uid, --gid): the
// owner's local account, resolved by the executor with the node's rule
// (node/job_account.h: the accounts map, never root unless allowed). An
// error (naming the field) where the order cannot be one: no command, a
// command[0] sh would read as an option, an environment variable name sh
// does not pass on (not [A-Za-z_][A-Za-z0-9_]*), a carriage return
// anywhere (sbatch refuses DOS line breaks), uid 0 without
// allow_root_jobs, a folder that is no single path component.
absl::StatusOr<SbatchCall> SbatchFor(const v1::LaunchOrder& order, const std::string& node, const JobIdentity& who,
                                     const SbatchOptions& options);

// A variable name sh passes on to what it execs: [A-Za-z_][A-Za-z0-9_]*.
bool IsEnvName(const std::string& name);

// `text` as one word for sh: single-quoted, each ' written '\''.
std::string ShellQuote(const std::string& text);

}  // namespace synergy::slurm
