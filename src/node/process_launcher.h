#pragma once
// Starts and stops the processes of the jobs leased to this node, and tells
// the agent when they end. A job is one (job_id, epoch): a lease that is
// revoked and granted again gets a new epoch, so a late exit of the old
// process can never be mistaken for the new one.
//
// Each job runs in its own process group, so Stop() reaches the launcher
// script and everything it spawned (torchrun, data-loader workers), and when
// the group's first process exits, whatever it left behind is SIGKILLed: a
// straggler would hold GPUs and CPUs the scheduler has already handed to
// someone else. Stopping is two-phase and non-blocking: SIGTERM now, SIGKILL
// from Poll() once the grace period has passed, so the heartbeat thread never
// waits on a job that checkpoints slowly.
//
// Exec errors are reported synchronously: Launch() returns an error Status
// (NotFound for a missing binary, PermissionDenied, ...; message "job <id>
// epoch <n>: cannot exec its command[0]: <strerror>" (argv[0] itself goes to
// the node's log only: the reason is shown to every user), or "... cannot chdir to
// '<dir>': ...") and no exit is reported later. Confinement is best effort: if the cgroup or affinity
// cannot be applied the job still runs, with one warn line saying what was
// not applied, because refusing work over a missing cgroup would idle GPUs.
//
// A job runs as its account (LaunchSpec.account): the child takes the
// account's supplementary groups, gid and uid after it has been confined and
// before exec, so it cannot leave its cgroups, and its log files belong to
// it. Its environment is the job's own over a small base (PATH, locale,
// TZ, TMPDIR, HOME/USER/LOGNAME of the account, and the names the node's
// config passes through), never the node's whole environment: the node's
// credential stays with the node.
//
// Between fork and exec the child makes only async-signal-safe calls (argv,
// envp and the PATH candidates are built before fork), since the agent is
// multi-threaded. The child waits on a pipe until the parent has put it into
// its cgroups and set its affinity, so no instruction of the job runs
// unconfined. Signal mask and ignored signals are reset to defaults, and file
// descriptors other than 0-2 are closed on exec, so nothing of the agent's
// state leaks into jobs.
//
// The launcher must be the only one reaping its children: the rest of the
// process must not call waitpid(-1, ...) or set SIGCHLD to SIG_IGN (a child
// reaped elsewhere is reported with an unknown status).
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "node/cgroups.h"

namespace synergy::node {

// A local account to run a job as.
struct JobAccount {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary
  std::string home;
};

struct LaunchSpec {
  std::string job_id;                      // e.g. "j-000012"; no '/'
  int64_t epoch = 0;                       // lease epoch
  std::vector<std::string> argv;           // argv[0] looked up in PATH (the job's, if env sets it)
  std::map<std::string, std::string> env;  // added to (overriding) the node's environment
  std::vector<int> gpu_ids;                // CUDA_VISIBLE_DEVICES=comma list ("" when none); wins over env
  std::vector<int> cpu_ids;                // affinity + cpuset cgroup; empty = unpinned
  int64_t mem_bytes = 0;                   // memory cgroup limit, 0 = none
  double cpu_cores = 0;                    // CPU-time limit in cores (cpu cgroup), 0 = none
  // A profiling lease on CPU slots: the job may lower its own CPU-time
  // limit point by point; it learns the file from SYNERGY_CPU_LIMIT_FILE
  // and the period from SYNERGY_CPU_PERIOD_US (set only with a cpu cgroup).
  bool delegate_cpu_limit = false;
  std::string log_dir;                     // required; <log_dir>/<job_id>.<epoch>.out / .err, appended
  std::string work_dir;                    // chdir in the child ("" = inherit)
  // Run as this account; unset = as the node's own (no change of identity).
  std::optional<JobAccount> account;
  // Names of the node's environment variables the job also gets.
  std::vector<std::string> env_passthrough;
};

struct ProcessExit {
  std::string job_id;
  int64_t epoch = 0;
  int exit_code = -1;          // -1 when killed by a signal
  int signal = 0;              // 0 when it exited
  bool stopped_by_us = false;  // Stop()/StopAll() had been called for it
  std::string reason;          // "exited with status 3", "killed by signal 9 (Killed)"
};

class ProcessLauncher {
 public:
  // `group_prefix` makes this launcher's cgroup names its own (synergy-node
  // uses its name and pid): nodes on one machine share the hierarchy, and a
  // job's group is swept of what is left in it when the job ends.
  explicit ProcessLauncher(Cgroups cgroups, std::string group_prefix = "");
  // Kills (SIGTERM, then SIGKILL at once) and reaps what is still running.
  ~ProcessLauncher();
  ProcessLauncher(const ProcessLauncher&) = delete;
  ProcessLauncher& operator=(const ProcessLauncher&) = delete;

  // Returns the pid (also the process group id). InvalidArgument for an
  // empty job_id/argv/log_dir, AlreadyExists if (job_id, epoch) is running,
  // errno-derived codes for log files that cannot be opened and for exec or
  // chdir failures in the child.
  absl::StatusOr<pid_t> Launch(const LaunchSpec& spec);

  // SIGTERM to the process group now; Poll() sends SIGKILL once `grace` has
  // passed. Stopping again can only shorten the deadline. Unknown or already
  // exited (job_id, epoch): nothing happens.
  void Stop(const std::string& job_id, int64_t epoch, std::chrono::milliseconds grace);

  // Changes a running (job_id, epoch)'s confinement in place (a resize):
  // its cgroup limits (Cgroups::Update; `memory_grows` orders the writes)
  // and, with CPU ids, the affinity of its first process. NotFound when it
  // does not run; a limit that cannot be written is an error naming it,
  // and the job runs on as it was.
  absl::Status Reconfine(const std::string& job_id, int64_t epoch, const std::vector<int>& cpu_ids,
                         int64_t mem_bytes, double cpu_cores, bool memory_grows);

  // Reaps exited children (never blocks), SIGKILLs overdue stops, removes the
  // cgroups of the exited and returns every exit since the last call.
  std::vector<ProcessExit> Poll();

  struct Running {
    std::string job_id;
    int64_t epoch;
    pid_t pid;
    bool stopping;
  };
  std::vector<Running> running() const;  // ordered by (job_id, epoch)

  // For shutdown: stops everything and waits until all have exited, at most
  // grace + 1 s (what is still alive then is logged and left). Their exits
  // are returned by the next Poll().
  void StopAll(std::chrono::milliseconds grace);

 private:
  using Clock = std::chrono::steady_clock;
  using Key = std::pair<std::string, int64_t>;  // (job_id, epoch)
  struct Child {
    pid_t pid = 0;
    bool stopping = false;
    bool killed = false;  // SIGKILL sent after the grace period
    Clock::time_point term_sent;
    Clock::time_point kill_deadline;
    std::chrono::milliseconds killed_after{0};  // SIGTERM to SIGKILL
  };

  void Confine(pid_t pid, const LaunchSpec& spec, const std::string& group);
  void BeginStop(const Key& key, Child& child, std::chrono::milliseconds grace,
                 Clock::time_point now);
  void EscalateIfOverdue(const Key& key, Child& child, Clock::time_point now);
  // Moves exited children to exits_ and escalates overdue stops.
  void ReapAndEscalate(Clock::time_point now);
  static ProcessExit DescribeExit(const Key& key, const Child& child, int status);

  // Guards the child table, the exits not yet returned, and the cgroup tree
  // the children live in.
  mutable std::mutex children_mu_;
  Cgroups cgroups_;
  std::string group_prefix_;
  std::string GroupOf(const std::string& job_id, int64_t epoch) const;
  std::map<Key, Child> children_;
  std::vector<ProcessExit> exits_;
};

}  // namespace synergy::node
