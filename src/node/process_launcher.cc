#include "node/process_launcher.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "node/errno_status.h"
#include "service/escape.h"
#include "spdlog/spdlog.h"

extern char** environ;

namespace synergy::node {
namespace {

using std::chrono::milliseconds;

std::string JobName(const std::string& job_id, int64_t epoch) {
  return absl::StrCat("job ", job_id, " epoch ", epoch);
}

// Also the cgroup name, so it must stay one path component.
std::string InstanceName(const std::string& job_id, int64_t epoch) {
  return absl::StrCat(job_id, ".", epoch);
}

std::string SignalText(int signal_number) {
  const char* text = sigdescr_np(signal_number);
  return text != nullptr ? text : "unknown signal";
}

absl::Status ValidateSpec(const LaunchSpec& spec) {
  if (spec.job_id.empty() || spec.job_id.find_first_of(std::string("/\0", 2)) != std::string::npos ||
      spec.job_id == "." || spec.job_id == "..") {
    return absl::InvalidArgumentError(
        absl::StrCat("launch: job_id '", spec.job_id, "' is empty or not a file name"));
  }
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch ", JobName(spec.job_id, spec.epoch), ": empty argv"));
  }
  if (spec.log_dir.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("launch ", JobName(spec.job_id, spec.epoch), ": empty log_dir"));
  }
  return absl::OkStatus();
}

// Where programs are looked up, and the PATH a job gets, when the node has
// none.
constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

// Of the node's environment, what every job may see: where programs are,
// the locale and the time zone. Nothing else (the node's credential, its
// secrets) unless the node's config names it.
bool PassesToJobs(const std::string& name, const LaunchSpec& spec) {
  static const std::set<std::string> kBase = {"PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR"};
  if (kBase.count(name) || absl::StartsWith(name, "LC_")) return true;
  return std::find(spec.env_passthrough.begin(), spec.env_passthrough.end(), name) != spec.env_passthrough.end();
}

// A small base (see PassesToJobs) with the job's on top; CUDA_VISIBLE_DEVICES
// last because the GPU grant is the scheduler's, not the job spec's.
std::vector<std::string> BuildEnvironment(const LaunchSpec& spec) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const char* eq = std::strchr(*entry, '=');
    if (eq == nullptr) continue;
    std::string name(*entry, static_cast<size_t>(eq - *entry));
    if (PassesToJobs(name, spec)) merged[name] = std::string(eq + 1);
  }
  if (!merged.count("PATH")) merged["PATH"] = kDefaultPath;
  if (spec.account) {
    merged["HOME"] = spec.account->home;
    merged["USER"] = spec.account->name;
    merged["LOGNAME"] = spec.account->name;
  }
  for (const auto& [name, value] : spec.env) merged[name] = value;
  merged["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(spec.gpu_ids, ",");
  std::vector<std::string> out;
  out.reserve(merged.size());
  for (const auto& [name, value] : merged) out.push_back(absl::StrCat(name, "=", value));
  return out;
}

// What execvp would try, in order, resolved before fork because PATH search
// in the child would allocate. The job's PATH wins over the node's.
std::vector<std::string> ExecCandidates(const LaunchSpec& spec) {
  const std::string& program = spec.argv[0];
  if (program.find('/') != std::string::npos) return {program};
  std::string path;
  if (auto it = spec.env.find("PATH"); it != spec.env.end()) {
    path = it->second;
  } else if (const char* node_path = std::getenv("PATH"); node_path != nullptr) {
    path = node_path;
  } else {
    path = kDefaultPath;
  }
  std::vector<std::string> candidates;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    candidates.push_back(absl::StrCat(dir.empty() ? "." : dir, "/", program));
  }
  return candidates;
}

std::vector<char*> PointerArray(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// Opens with O_CLOEXEC at fd >= 3, so the child's dup2 onto 0-2 can never
// clobber one of its own sources. Created files are private (0600).
absl::StatusOr<int> OpenAboveStdio(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("open ", path));
  if (fd < 3) {
    int high = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    int saved = errno;
    ::close(fd);
    if (high < 0) return ErrnoStatus(saved, absl::StrCat("dup ", path));
    fd = high;
  }
  return fd;
}

// An output file the launcher may write and give to the job's owner: a
// regular file with no other name (a hard link planted in log_dir would
// give its target away), owned by this process's user or the job's owner
// (an earlier lease of the same job appends to its own file).
absl::Status CheckOutputFile(int fd, const std::string& path, uid_t owner) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoStatus(errno, absl::StrCat("stat ", path));
  if (!S_ISREG(st.st_mode)) return absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file"));
  if (st.st_nlink != 1) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": has ", st.st_nlink, " names (a hard link): refused"));
  }
  if (st.st_uid != ::geteuid() && st.st_uid != owner) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": belongs to uid ", st.st_uid, ", not the job's owner"));
  }
  return absl::OkStatus();
}

struct StdioFds {
  int in = -1, out = -1, err = -1;
  void Close() {
    for (int* fd : {&in, &out, &err}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }
};

absl::StatusOr<StdioFds> OpenStdio(const LaunchSpec& spec) {
  std::error_code ec;
  std::filesystem::create_directories(spec.log_dir, ec);
  if (ec) {
    return absl::Status(absl::ErrnoToStatusCode(ec.value()),
                        absl::StrCat("create log directory ", spec.log_dir, ": ", ec.message()));
  }
  const std::string stem =
      absl::StrCat(spec.log_dir, "/", InstanceName(spec.job_id, spec.epoch));
  StdioFds fds;
  // Never through a link planted in log_dir: the file is chowned to the
  // job's owner below, which would hand them the link's target.
  const int append = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NOCTTY;
  absl::StatusOr<int> in = OpenAboveStdio("/dev/null", O_RDONLY);
  if (in.ok()) fds.in = *in;
  absl::StatusOr<int> out = in.ok() ? OpenAboveStdio(stem + ".out", append) : in;
  if (out.ok()) fds.out = *out;
  absl::StatusOr<int> err = out.ok() ? OpenAboveStdio(stem + ".err", append) : out;
  if (!err.ok()) {
    fds.Close();
    return err.status();
  }
  fds.err = *err;
  // The job's output is its owner's to read, and only theirs.
  for (const auto& [fd, file] : {std::pair{fds.out, stem + ".out"}, std::pair{fds.err, stem + ".err"}}) {
    if (absl::Status st = CheckOutputFile(fd, file, spec.account ? spec.account->uid : ::geteuid()); !st.ok()) {
      fds.Close();
      return st;
    }
    if (spec.account && ::fchown(fd, spec.account->uid, spec.account->gid) != 0) {
      const int saved = errno;
      fds.Close();
      return ErrnoStatus(saved, absl::StrCat("chown ", file, " to ", spec.account->name));
    }
    if (::fchmod(fd, 0600) != 0) {
      const int saved = errno;
      fds.Close();
      return ErrnoStatus(saved, absl::StrCat("chmod 0600 ", file));
    }
  }
  return fds;
}

// What the child sends back when it cannot get as far as exec.
enum class ChildStage : int { kStdio = 1, kChdir = 2, kExec = 3, kIdentity = 4 };
struct ChildReport {
  ChildStage stage;
  int error_number;
};

struct ChildSetup {
  char* const* argv;
  char* const* envp;
  std::vector<const char*> candidates;
  const char* work_dir;  // nullptr: inherit
  bool switch_account;
  uid_t uid;
  gid_t gid;
  std::vector<gid_t> groups;
  StdioFds stdio;
  int go_read, go_write, report_read, report_write;
};

[[noreturn]] void ReportAndExit(int report_fd, ChildStage stage, int error_number) {
  ChildReport report{stage, error_number};
  ssize_t ignored = ::write(report_fd, &report, sizeof(report));
  (void)ignored;
  ::_exit(127);
}

bool RetryableExecError(int error_number) {
  return error_number == ENOENT || error_number == ENOTDIR || error_number == ESTALE ||
         error_number == ENODEV || error_number == ETIMEDOUT;
}

// Runs in the forked child: async-signal-safe calls only.
[[noreturn]] void RunChild(const ChildSetup& s) {
  ::close(s.go_write);
  ::close(s.report_read);
  ::setpgid(0, 0);
  struct sigaction default_action;
  std::memset(&default_action, 0, sizeof(default_action));
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);

  char go = 0;
  ssize_t n;
  do {
    n = ::read(s.go_read, &go, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) ::_exit(127);  // the parent gave up on us

  // Confined now: become the job's account for good (groups first, uid
  // last, since each step needs the privilege the next one drops).
  if (s.switch_account) {
    if (::setgroups(s.groups.size(), s.groups.data()) != 0 || ::setgid(s.gid) != 0 || ::setuid(s.uid) != 0) {
      ReportAndExit(s.report_write, ChildStage::kIdentity, errno);
    }
    if (s.uid != 0 && ::setuid(0) == 0) ReportAndExit(s.report_write, ChildStage::kIdentity, EPERM);
  }

  const int sources[3] = {s.stdio.in, s.stdio.out, s.stdio.err};
  for (int target = 0; target < 3; ++target) {
    if (::dup2(sources[target], target) < 0) ReportAndExit(s.report_write, ChildStage::kStdio, errno);
  }
  if (s.work_dir != nullptr && ::chdir(s.work_dir) != 0) {
    ReportAndExit(s.report_write, ChildStage::kChdir, errno);
  }
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);  // nothing of the agent's beyond stdio
  // A job creates files as a login shell would, whatever the node's own
  // umask (its unit runs with UMask=0077 so that the node's files are private).
  ::umask(022);

  bool saw_eacces = false;
  int last_error = ENOENT;
  for (const char* candidate : s.candidates) {
    ::execve(candidate, s.argv, s.envp);
    last_error = errno;
    if (last_error == EACCES) {
      saw_eacces = true;
    } else if (!RetryableExecError(last_error)) {
      ReportAndExit(s.report_write, ChildStage::kExec, last_error);
    }
  }
  ReportAndExit(s.report_write, ChildStage::kExec, saw_eacces ? EACCES : last_error);
}

// A child killed before it read the go byte must not take the agent down with
// SIGPIPE.
void SendGo(int fd) {
  sigset_t pipe_only, previous;
  ::sigemptyset(&pipe_only);
  ::sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  ssize_t n;
  do {
    n = ::write(fd, "g", 1);
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EPIPE && !::sigismember(&previous, SIGPIPE)) {
    const struct timespec zero = {0, 0};
    ::sigtimedwait(&pipe_only, nullptr, &zero);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

// Returns true and fills *report when the child failed before exec; false
// once the pipe closes on a successful exec.
bool ReadChildReport(int fd, ChildReport* report) {
  size_t got = 0;
  auto* bytes = reinterpret_cast<char*>(report);
  while (got < sizeof(*report)) {
    ssize_t n = ::read(fd, bytes + got, sizeof(*report) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return got == sizeof(*report);
}

absl::Status ChildFailure(const LaunchSpec& spec, const ChildReport& report) {
  std::string what;
  switch (report.stage) {
    case ChildStage::kStdio: what = "cannot redirect stdin/stdout/stderr"; break;
    case ChildStage::kChdir: what = absl::StrCat("cannot chdir to '", spec.work_dir, "'"); break;
    // The reason reaches every user's job list: the program's path (which
    // may name a private project) stays in the node's log.
    case ChildStage::kExec:
      spdlog::warn("{}: cannot exec '{}'", JobName(spec.job_id, spec.epoch), service::EscapeForDisplay(spec.argv[0], 256));
      what = "cannot exec its command[0]";
      break;
    case ChildStage::kIdentity:
      what = absl::StrCat("cannot run as '", spec.account ? spec.account->name : "?", "'");
      break;
  }
  return absl::Status(absl::ErrnoToStatusCode(report.error_number),
                      absl::StrCat(JobName(spec.job_id, spec.epoch), ": ", what, ": ",
                                   ErrnoText(report.error_number)));
}

std::string SetAffinity(pid_t pid, const std::vector<int>& cpu_ids) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpu_ids) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return absl::StrCat("affinity: cpu id ", cpu, " out of range");
    CPU_SET(cpu, &set);
  }
  if (::sched_setaffinity(pid, sizeof(set), &set) != 0) {
    return absl::StrCat("sched_setaffinity(", service::FormatIdList(cpu_ids), "): ", ErrnoText(errno));
  }
  return "";
}

// Pins every thread of every process in process group `pgid` to `cpu_ids`;
// "" or the first problem. Processes that exit meanwhile are skipped.
std::string RepinProcessGroup(pid_t pgid, const std::vector<int>& cpu_ids) {
  std::error_code ec;
  for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(proc.path().filename().c_str()));
    if (pid <= 0 || ::getpgid(pid) != pgid) continue;
    std::error_code task_ec;
    for (const auto& task : std::filesystem::directory_iterator(proc.path() / "task", task_ec)) {
      const pid_t tid = static_cast<pid_t>(std::atoi(task.path().filename().c_str()));
      if (tid <= 0) continue;
      std::string problem = SetAffinity(tid, cpu_ids);
      if (!problem.empty() && errno != ESRCH) return problem;
    }
  }
  return "";
}

pid_t WaitBlocking(pid_t pid, int* status) {
  pid_t waited;
  do {
    waited = ::waitpid(pid, status, 0);
  } while (waited < 0 && errno == EINTR);
  return waited;
}

// A forked child waiting for the go byte, in its own process group.
struct ParkedChild {
  pid_t pid;
  int go_write;     // write one byte to let it exec
  int report_read;  // EOF on exec, a ChildReport if it failed before
};

absl::StatusOr<ParkedChild> ForkParked(const LaunchSpec& spec) {
  // Everything the child needs is built here: it may not allocate.
  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = BuildEnvironment(spec);
  std::vector<char*> argv = PointerArray(argv_strings);
  std::vector<char*> envp = PointerArray(env_strings);
  const std::vector<std::string> candidates = ExecCandidates(spec);
  const std::string context = absl::StrCat("launch ", JobName(spec.job_id, spec.epoch), ": ");
  absl::StatusOr<StdioFds> stdio = OpenStdio(spec);
  if (!stdio.ok()) {
    return absl::Status(stdio.status().code(), absl::StrCat(context, stdio.status().message()));
  }
  int go[2] = {-1, -1}, report[2] = {-1, -1};
  if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    const int saved = errno;
    stdio->Close();
    for (int fd : {go[0], go[1]}) {
      if (fd >= 0) ::close(fd);
    }
    return ErrnoStatus(saved, context + "pipe");
  }
  ChildSetup setup{argv.data(), envp.data(), {}, nullptr, false, 0, 0, {}, *stdio, go[0], go[1], report[0], report[1]};
  if (spec.account) {
    setup.switch_account = true;
    setup.uid = spec.account->uid;
    setup.gid = spec.account->gid;
    setup.groups = spec.account->groups;
  }
  for (const std::string& c : candidates) setup.candidates.push_back(c.c_str());
  if (!spec.work_dir.empty()) setup.work_dir = spec.work_dir.c_str();

  const pid_t pid = ::fork();
  if (pid == 0) RunChild(setup);
  const int fork_errno = errno;
  ::close(go[0]);
  ::close(report[1]);
  stdio->Close();
  if (pid < 0) {
    ::close(go[1]);
    ::close(report[0]);
    return ErrnoStatus(fork_errno, context + "fork");
  }
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins
  return ParkedChild{pid, go[1], report[0]};
}

}  // namespace

ProcessLauncher::ProcessLauncher(Cgroups cgroups, std::string group_prefix)
    : cgroups_(std::move(cgroups)), group_prefix_(std::move(group_prefix)) {}

std::string ProcessLauncher::GroupOf(const std::string& job_id, int64_t epoch) const {
  return group_prefix_.empty() ? InstanceName(job_id, epoch) : absl::StrCat(group_prefix_, ".", InstanceName(job_id, epoch));
}

ProcessLauncher::~ProcessLauncher() {
  {
    std::lock_guard<std::mutex> lock(children_mu_);
    if (children_.empty()) return;
    spdlog::warn("process launcher: shutting down with {} job(s) running; killing them",
                 children_.size());
  }
  StopAll(milliseconds(0));
}

absl::StatusOr<pid_t> ProcessLauncher::Launch(const LaunchSpec& spec) {
  if (absl::Status valid = ValidateSpec(spec); !valid.ok()) return valid;
  const Key key{spec.job_id, spec.epoch};
  std::lock_guard<std::mutex> lock(children_mu_);
  if (children_.count(key) != 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("launch ", JobName(spec.job_id, spec.epoch), ": already running"));
  }
  const std::string group = GroupOf(spec.job_id, spec.epoch);
  LaunchSpec launched = spec;
  if (spec.delegate_cpu_limit && spec.cpu_cores > 0 && cgroups_.cpu()) {
    launched.env["SYNERGY_CPU_LIMIT_FILE"] = cgroups_.CpuLimitFile(group);
    launched.env["SYNERGY_CPU_PERIOD_US"] = std::to_string(Cgroups::kCpuPeriodUs);
  }
  absl::StatusOr<ParkedChild> parked = ForkParked(launched);
  if (!parked.ok()) return parked.status();

  Confine(parked->pid, launched, group);
  SendGo(parked->go_write);
  ::close(parked->go_write);
  ChildReport child_report;
  const bool failed = ReadChildReport(parked->report_read, &child_report);
  ::close(parked->report_read);
  if (failed) {
    int status = 0;
    WaitBlocking(parked->pid, &status);
    cgroups_.Remove(group);
    return ChildFailure(spec, child_report);
  }
  Child child;
  child.pid = parked->pid;
  children_[key] = child;
  spdlog::info("{}: started pid {}: {}", JobName(spec.job_id, spec.epoch), child.pid,
               service::EscapeForDisplay(absl::StrJoin(spec.argv, " "), 1024));
  return child.pid;
}

// The child is parked on the go pipe: confine it before it runs job code.
void ProcessLauncher::Confine(pid_t pid, const LaunchSpec& spec, const std::string& group) {
  std::vector<std::string> unconfined;
  if (absl::Status placed = cgroups_.Place(pid, group, spec.cpu_ids, spec.mem_bytes, spec.cpu_cores); !placed.ok()) {
    unconfined.emplace_back(placed.message());
  }
  if (!spec.cpu_ids.empty()) {
    if (std::string problem = SetAffinity(pid, spec.cpu_ids); !problem.empty()) {
      unconfined.push_back(problem);
    }
  }
  // A profiling job lowers its own CPU-time limit: the file is its
  // account's to write (and nothing else of the cgroup is).
  if (auto file = spec.env.find("SYNERGY_CPU_LIMIT_FILE"); file != spec.env.end() && spec.account) {
    if (::chown(file->second.c_str(), spec.account->uid, spec.account->gid) != 0) {
      unconfined.push_back(absl::StrCat("chown ", file->second, ": ", ErrnoText(errno)));
    }
  }
  if (!unconfined.empty()) {
    spdlog::warn("{}: running without full confinement: {}", JobName(spec.job_id, spec.epoch),
                 absl::StrJoin(unconfined, "; "));
  }
}

void ProcessLauncher::BeginStop(const Key& key, Child& child, milliseconds grace,
                                Clock::time_point now) {
  const Clock::time_point deadline = now + grace;
  if (!child.stopping) {
    child.stopping = true;
    child.term_sent = now;
    child.kill_deadline = deadline;
    if (::kill(-child.pid, SIGTERM) != 0 && errno != ESRCH) {
      spdlog::warn("{}: SIGTERM to process group {}: {}", JobName(key.first, key.second),
                   child.pid, ErrnoText(errno));
    }
    spdlog::info("{}: SIGTERM sent, SIGKILL in {} ms", JobName(key.first, key.second),
                 grace.count());
  } else if (deadline < child.kill_deadline) {
    child.kill_deadline = deadline;
  }
  EscalateIfOverdue(key, child, now);
}

void ProcessLauncher::EscalateIfOverdue(const Key& key, Child& child, Clock::time_point now) {
  if (!child.stopping || child.killed || now < child.kill_deadline) return;
  child.killed = true;
  child.killed_after = std::chrono::duration_cast<milliseconds>(now - child.term_sent);
  if (::kill(-child.pid, SIGKILL) != 0 && errno != ESRCH) {
    spdlog::warn("{}: SIGKILL to process group {}: {}", JobName(key.first, key.second),
                 child.pid, ErrnoText(errno));
  }
  spdlog::info("{}: still running {} ms after SIGTERM; SIGKILL sent",
               JobName(key.first, key.second), child.killed_after.count());
}

ProcessExit ProcessLauncher::DescribeExit(const Key& key, const Child& child, int status) {
  ProcessExit exit;
  exit.job_id = key.first;
  exit.epoch = key.second;
  exit.stopped_by_us = child.stopping;
  if (WIFEXITED(status)) {
    exit.exit_code = WEXITSTATUS(status);
    exit.reason = absl::StrCat("exited with status ", exit.exit_code);
  } else if (WIFSIGNALED(status)) {
    exit.signal = WTERMSIG(status);
    exit.reason = absl::StrCat("killed by signal ", exit.signal, " (", SignalText(exit.signal), ")");
    if (WCOREDUMP(status)) absl::StrAppend(&exit.reason, ", core dumped");
    if (child.killed) {
      absl::StrAppend(&exit.reason, "; still running ", child.killed_after.count(),
                      " ms after SIGTERM");
    }
  } else {
    exit.reason = absl::StrCat("ended with wait status ", status);
  }
  return exit;
}

void ProcessLauncher::ReapAndEscalate(Clock::time_point now) {
  for (auto it = children_.begin(); it != children_.end();) {
    const Key& key = it->first;
    Child& child = it->second;
    siginfo_t info;
    std::memset(&info, 0, sizeof(info));
    // WNOWAIT leaves the leader a zombie, which keeps its pid and process
    // group id from being reused while the group's stragglers are killed.
    const int waited = ::waitid(P_PID, child.pid, &info, WEXITED | WNOHANG | WNOWAIT);
    const int wait_errno = errno;
    const bool exited = waited == 0 && info.si_pid == child.pid;
    if (!exited && !(waited < 0 && wait_errno == ECHILD)) {
      EscalateIfOverdue(key, child, now);
      ++it;
      continue;
    }
    ProcessExit exit;
    exit.job_id = key.first;
    exit.epoch = key.second;
    if (exited) {
      ::kill(-child.pid, SIGKILL);
      int status = 0;
      if (WaitBlocking(child.pid, &status) == child.pid) {
        exit = DescribeExit(key, child, status);
      } else {
        exit.stopped_by_us = child.stopping;
        exit.reason = absl::StrCat("exited, but waitpid failed: ", ErrnoText(errno));
      }
    } else {
      exit.stopped_by_us = child.stopping;
      exit.reason = "reaped outside the launcher; exit status unknown";
    }
    spdlog::info("{}: pid {} {}", JobName(key.first, key.second), child.pid, exit.reason);
    cgroups_.Remove(GroupOf(key.first, key.second));
    exits_.push_back(std::move(exit));
    it = children_.erase(it);
  }
}

void ProcessLauncher::Stop(const std::string& job_id, int64_t epoch, milliseconds grace) {
  std::lock_guard<std::mutex> lock(children_mu_);
  auto it = children_.find(Key{job_id, epoch});
  if (it == children_.end()) {
    spdlog::debug("{}: stop requested, but it is not running", JobName(job_id, epoch));
    return;
  }
  BeginStop(it->first, it->second, grace, Clock::now());
}

std::vector<ProcessExit> ProcessLauncher::Poll() {
  std::lock_guard<std::mutex> lock(children_mu_);
  ReapAndEscalate(Clock::now());
  return std::exchange(exits_, {});
}

absl::Status ProcessLauncher::Reconfine(const std::string& job_id, int64_t epoch, const std::vector<int>& cpu_ids,
                                        int64_t mem_bytes, double cpu_cores, bool memory_grows) {
  std::lock_guard<std::mutex> lock(children_mu_);
  auto it = children_.find({job_id, epoch});
  if (it == children_.end() || it->second.stopping) {
    return absl::NotFoundError(absl::StrCat(JobName(job_id, epoch), " is not running"));
  }
  std::vector<std::string> problems;
  if (absl::Status st = cgroups_.Update(GroupOf(job_id, epoch), cpu_ids, mem_bytes, cpu_cores, memory_grows);
      !st.ok()) {
    problems.emplace_back(st.message());
  }
  // Where a cpuset cgroup exists, the kernel has already moved every task
  // of the group; without one, every thread of every process in the job's
  // process group (its data workers included) is pinned again.
  if (!cpu_ids.empty() && !cgroups_.cpuset()) {
    if (std::string problem = RepinProcessGroup(it->second.pid, cpu_ids); !problem.empty()) {
      problems.push_back(problem);
    }
  }
  if (problems.empty()) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(JobName(job_id, epoch), ": ", absl::StrJoin(problems, "; ")));
}

std::vector<ProcessLauncher::Running> ProcessLauncher::running() const {
  std::lock_guard<std::mutex> lock(children_mu_);
  std::vector<Running> out;
  out.reserve(children_.size());
  for (const auto& [key, child] : children_) {
    out.push_back(Running{key.first, key.second, child.pid, child.stopping});
  }
  return out;
}

void ProcessLauncher::StopAll(milliseconds grace) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point give_up = start + grace + std::chrono::seconds(1);
  {
    std::lock_guard<std::mutex> lock(children_mu_);
    for (auto& [key, child] : children_) BeginStop(key, child, grace, start);
  }
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(children_mu_);
      const Clock::time_point now = Clock::now();
      ReapAndEscalate(now);
      if (children_.empty()) return;
      if (now >= give_up) {
        for (const auto& [key, child] : children_) {
          spdlog::error("{}: pid {} still alive {} ms after SIGKILL; leaving it",
                        JobName(key.first, key.second), child.pid,
                        std::chrono::duration_cast<milliseconds>(now - start - grace).count());
        }
        return;
      }
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
}

}  // namespace synergy::node
