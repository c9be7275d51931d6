// The node agent's process launcher, with real processes (/bin/sh, sleep),
// and its cgroup placement against fake cgroup trees in a temporary
// directory (regular files standing in for control files; no root needed).
#include "node/process_launcher.h"

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "node/cgroups.h"

namespace synergy::node {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = ::testing::TempDir() + "synergy-node-XXXXXX";
    const char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteAll(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// Polls until `count` exits have been reported or 3 s pass.
std::vector<ProcessExit> PollForExits(ProcessLauncher& launcher, size_t count = 1) {
  std::vector<ProcessExit> exits;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (exits.size() < count && std::chrono::steady_clock::now() < give_up) {
    for (ProcessExit& e : launcher.Poll()) exits.push_back(std::move(e));
    std::this_thread::sleep_for(milliseconds(5));
  }
  return exits;
}

bool WaitForFileToContain(const std::string& path, const std::string& text) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (std::chrono::steady_clock::now() < give_up) {
    if (ReadAll(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return false;
}

// A pid is gone once it no longer exists or is a zombie awaiting its reaper.
bool ProcessGone(pid_t pid) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < give_up) {
    std::string stat = ReadAll("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = stat.rfind(')');
    if (stat.empty() || (paren != std::string::npos && stat.substr(paren + 2, 1) == "Z")) return true;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return false;
}

LaunchSpec ShellSpec(const TempDir& logs, const std::string& job_id, const std::string& script) {
  LaunchSpec spec;
  spec.job_id = job_id;
  spec.epoch = 1;
  spec.argv = {"/bin/sh", "-c", script};
  spec.log_dir = logs.path();
  return spec;
}

std::string OutLog(const LaunchSpec& spec) {
  return spec.log_dir + "/" + spec.job_id + "." + std::to_string(spec.epoch) + ".out";
}

TEST(ProcessLauncher, ReportsExitStatusAndSeparatesStdoutFromStderr) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec = ShellSpec(logs, "j-000012", "echo out; echo err >&2; exit 3");
  spec.epoch = 4;
  ASSERT_TRUE(launcher.Launch(spec).ok());

  std::vector<ProcessExit> exits = PollForExits(launcher);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].job_id, "j-000012");
  EXPECT_EQ(exits[0].epoch, 4);
  EXPECT_EQ(exits[0].exit_code, 3);
  EXPECT_EQ(exits[0].signal, 0);
  EXPECT_FALSE(exits[0].stopped_by_us);
  EXPECT_EQ(exits[0].reason, "exited with status 3");
  EXPECT_EQ(ReadAll(logs / "j-000012.4.out"), "out\n");
  EXPECT_EQ(ReadAll(logs / "j-000012.4.err"), "err\n");
  EXPECT_TRUE(launcher.running().empty());
  EXPECT_TRUE(launcher.Poll().empty()) << "an exit is reported once";
}

TEST(ProcessLauncher, RelaunchAppendsToTheSameLogs) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec = ShellSpec(logs, "j-1", "echo first");
  ASSERT_TRUE(launcher.Launch(spec).ok());
  ASSERT_EQ(PollForExits(launcher).size(), 1u);
  spec.argv[2] = "echo second";
  ASSERT_TRUE(launcher.Launch(spec).ok());
  ASSERT_EQ(PollForExits(launcher).size(), 1u);
  EXPECT_EQ(ReadAll(OutLog(spec)), "first\nsecond\n");
}

TEST(ProcessLauncher, OutputFilesArePrivateEvenWhenTheyExistedBefore) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec = ShellSpec(logs, "j-private", "echo secret");
  WriteAll(logs / "j-private.1.err", "");  // an earlier lease's, 0644
  ::chmod((logs / "j-private.1.err").c_str(), 0644);
  ASSERT_TRUE(launcher.Launch(spec).ok());
  ASSERT_EQ(PollForExits(launcher).size(), 1u);
  for (const char* file : {"j-private.1.out", "j-private.1.err"}) {
    struct stat st;
    ASSERT_EQ(::stat((logs / file).c_str(), &st), 0) << file;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << file;
  }
}

// Whoever can write log_dir must not get a file of someone else's through
// the job's output: a symbolic or a hard link where the output goes is
// refused, and its target is untouched.
TEST(ProcessLauncher, ALinkPlantedWhereTheOutputGoesIsRefused) {
  TempDir logs, elsewhere;
  const std::string target = elsewhere / "secret";
  WriteAll(target, "root only\n");
  ::chmod(target.c_str(), 0600);
  ProcessLauncher launcher{Cgroups()};
  ASSERT_EQ(::symlink(target.c_str(), (logs / "j-sym.1.out").c_str()), 0);
  absl::StatusOr<pid_t> sym = launcher.Launch(ShellSpec(logs, "j-sym", "echo planted"));
  ASSERT_FALSE(sym.ok());
  EXPECT_THAT(std::string(sym.status().message()), HasSubstr("j-sym.1.out"));
  ASSERT_EQ(::link(target.c_str(), (logs / "j-hard.1.out").c_str()), 0) << "needs one filesystem for both";
  absl::StatusOr<pid_t> hard = launcher.Launch(ShellSpec(logs, "j-hard", "echo planted"));
  ASSERT_FALSE(hard.ok());
  EXPECT_THAT(std::string(hard.status().message()), HasSubstr("hard link"));
  EXPECT_EQ(ReadAll(target), "root only\n");
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_uid, ::geteuid());
}

// A job sees a small base of the node's environment (PATH, locale), the
// names the node's config passes through, and its own on top; never the
// node's credential.
TEST(ProcessLauncher, JobEnvironmentIsTheJobsOverAPassedThroughBaseAndGpuGrantWins) {
  TempDir logs;
  ::setenv("SYNERGY_TOKEN", "node-secret", 1);
  ::setenv("SYNERGY_TEST_NODE_ONLY", "node", 1);
  ::setenv("SYNERGY_TEST_OVERRIDDEN", "node", 1);
  ::setenv("CUDA_VISIBLE_DEVICES", "7", 1);
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec pinned = ShellSpec(
      logs, "j-env",
      "echo \"$SYNERGY_TEST_NODE_ONLY|$SYNERGY_TEST_OVERRIDDEN|$SYNERGY_TEST_JOB_ONLY|"
      "$CUDA_VISIBLE_DEVICES|${SYNERGY_TOKEN-unset}|${PATH:+path}\"");
  pinned.env_passthrough = {"SYNERGY_TEST_NODE_ONLY", "SYNERGY_TEST_OVERRIDDEN"};
  pinned.env = {{"SYNERGY_TEST_OVERRIDDEN", "job"}, {"SYNERGY_TEST_JOB_ONLY", "hello"},
                {"CUDA_VISIBLE_DEVICES", "0,1,2,3"}};
  pinned.gpu_ids = {2, 5};
  LaunchSpec gpuless =
      ShellSpec(logs, "j-nogpu", "echo \"[${CUDA_VISIBLE_DEVICES-unset}] ${SYNERGY_TEST_NODE_ONLY-unset}\"");
  ASSERT_TRUE(launcher.Launch(pinned).ok());
  ASSERT_TRUE(launcher.Launch(gpuless).ok());
  ASSERT_EQ(PollForExits(launcher, 2).size(), 2u);
  ::unsetenv("SYNERGY_TEST_NODE_ONLY");
  ::unsetenv("SYNERGY_TEST_OVERRIDDEN");
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ::unsetenv("SYNERGY_TOKEN");

  EXPECT_EQ(ReadAll(OutLog(pinned)), "node|job|hello|2,5|unset|path\n");
  EXPECT_EQ(ReadAll(OutLog(gpuless)), "[] unset\n") << "no GPUs: set, but empty; nothing passed through";
}

TEST(ProcessLauncher, RunsInItsWorkDir) {
  TempDir logs, work;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec = ShellSpec(logs, "j-cwd", "pwd");
  spec.work_dir = work.path();
  ASSERT_TRUE(launcher.Launch(spec).ok());
  ASSERT_EQ(PollForExits(launcher).size(), 1u);
  EXPECT_EQ(ReadAll(OutLog(spec)), fs::canonical(work.path()).string() + "\n");
}

TEST(ProcessLauncher, PinsTheChildToItsCpus) {
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  if (CPU_COUNT(&allowed) < 2 || !CPU_ISSET(0, &allowed)) {
    GTEST_SKIP() << "needs CPU 0 and one more allowed, or pinning to {0} proves nothing";
  }
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec = ShellSpec(logs, "j-pin", "grep Cpus_allowed_list /proc/self/status");
  spec.cpu_ids = {0};
  ASSERT_TRUE(launcher.Launch(spec).ok());
  ASSERT_EQ(PollForExits(launcher).size(), 1u);
  EXPECT_EQ(ReadAll(OutLog(spec)), "Cpus_allowed_list:\t0\n");
}

TEST(ProcessLauncher, StopSendsSigtermToTheWholeProcessGroup) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  // The inner shell is in the job's group but is not its pid: it only says
  // "child-term" if the group got SIGTERM. The outer one waits for it, so the
  // job exits 1 rather than dying of the signal.
  LaunchSpec spec = ShellSpec(
      logs, "j-tree",
      "trap 'wait; exit 1' TERM; "
      "sh -c 'trap \"echo child-term; exit 0\" TERM; echo ready; "
      "while :; do sleep 0.01; done' & wait");
  ASSERT_TRUE(launcher.Launch(spec).ok());
  ASSERT_TRUE(WaitForFileToContain(OutLog(spec), "ready"));

  launcher.Stop("j-tree", 1, milliseconds(2000));
  std::vector<ProcessExit> exits = PollForExits(launcher);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(ReadAll(OutLog(spec)), "ready\nchild-term\n");
  EXPECT_EQ(exits[0].exit_code, 1);
  EXPECT_EQ(exits[0].signal, 0);
  EXPECT_TRUE(exits[0].stopped_by_us) << "stopped_by_us even if it exits normally";
}

TEST(ProcessLauncher, StopEndsAProgramFoundInPathWithSigterm) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec;
  spec.job_id = "j-sleep";
  spec.argv = {"sleep", "30"};
  spec.log_dir = logs.path();
  absl::StatusOr<pid_t> pid = launcher.Launch(spec);
  ASSERT_TRUE(pid.ok()) << pid.status();
  EXPECT_EQ(::getpgid(*pid), *pid) << "the job leads its own process group";

  launcher.Stop("j-sleep", 0, milliseconds(200));
  std::vector<ProcessExit> exits = PollForExits(launcher);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].signal, SIGTERM) << "SIGTERM alone ends it, before the SIGKILL at 200 ms";
  EXPECT_EQ(exits[0].exit_code, -1);
  EXPECT_TRUE(exits[0].stopped_by_us);
  EXPECT_EQ(exits[0].reason, "killed by signal 15 (Terminated)");
}

TEST(ProcessLauncher, ChildIgnoringSigtermIsKilledAfterTheGracePeriod) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec = ShellSpec(logs, "j-stubborn", "trap '' TERM; echo ready; sleep 30");
  ASSERT_TRUE(launcher.Launch(spec).ok());
  ASSERT_TRUE(WaitForFileToContain(OutLog(spec), "ready")) << "trap must be set before Stop";

  const auto stop_at = std::chrono::steady_clock::now();
  launcher.Stop("j-stubborn", 1, milliseconds(200));
  EXPECT_TRUE(launcher.Poll().empty()) << "Stop does not wait, and TERM is ignored";
  std::vector<ProcessExit> exits = PollForExits(launcher);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_GE(std::chrono::steady_clock::now() - stop_at, milliseconds(200));
  EXPECT_EQ(exits[0].signal, SIGKILL);
  EXPECT_TRUE(exits[0].stopped_by_us);
  EXPECT_THAT(exits[0].reason, HasSubstr("killed by signal 9 (Killed); still running"));
  EXPECT_THAT(exits[0].reason, HasSubstr("ms after SIGTERM"));
}

TEST(ProcessLauncher, StragglersDieWithTheJobsMainProcess) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec spec = ShellSpec(logs, "j-orphan", "sleep 30 & echo $!");
  ASSERT_TRUE(launcher.Launch(spec).ok());
  std::vector<ProcessExit> exits = PollForExits(launcher);
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].exit_code, 0);
  const pid_t background = std::stoi(ReadAll(OutLog(spec)));
  EXPECT_TRUE(ProcessGone(background)) << "left-behind sleep " << background;
}

std::string StatusLine(pid_t pid, const std::string& field) {
  std::string status = ReadAll("/proc/" + std::to_string(pid) + "/status");
  size_t at = status.find(field + ":\t");
  return at == std::string::npos ? "" : status.substr(at, status.find('\n', at) - at);
}

TEST(ProcessLauncher, ChildStartsWithDefaultSignalsAndNoneOfTheAgentsFds) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  // An agent thread that blocks SIGTERM (to sigwait for it) and ignores
  // SIGHUP, and holds an inheritable descriptor.
  sigset_t term, previous_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &term, &previous_mask), 0);
  struct sigaction ignore = {}, previous_hup = {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGHUP, &ignore, &previous_hup), 0);
  ASSERT_EQ(::dup2(STDERR_FILENO, 50), 50);

  LaunchSpec listing = ShellSpec(logs, "j-fds", "ls /proc/$$/fd");
  LaunchSpec sleeper;
  sleeper.job_id = "j-signals";
  sleeper.argv = {"sleep", "30"};
  sleeper.log_dir = logs.path();
  absl::Status listed = launcher.Launch(listing).status();
  absl::StatusOr<pid_t> pid = launcher.Launch(sleeper);
  ::close(50);
  ::sigaction(SIGHUP, &previous_hup, nullptr);
  ::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  ASSERT_TRUE(listed.ok()) << listed;
  ASSERT_TRUE(pid.ok()) << pid.status();

  // Launch returns after exec, so this is sleep's own state.
  EXPECT_EQ(StatusLine(*pid, "SigBlk"), "SigBlk:\t0000000000000000");
  EXPECT_EQ(StatusLine(*pid, "SigIgn"), "SigIgn:\t0000000000000000");
  launcher.Stop("j-signals", 0, milliseconds(2000));
  std::vector<ProcessExit> exits = PollForExits(launcher, 2);
  ASSERT_EQ(exits.size(), 2u);
  for (const ProcessExit& e : exits) {
    if (e.job_id == "j-signals") {
      EXPECT_EQ(e.signal, SIGTERM) << "SIGTERM was not blocked";
    }
  }
  const std::vector<std::string> fds =
      absl::StrSplit(ReadAll(OutLog(listing)), '\n', absl::SkipEmpty());
  EXPECT_THAT(fds, ::testing::IsSupersetOf({"0", "1", "2"}));
  EXPECT_THAT(fds, ::testing::Not(::testing::Contains("50")));
}

TEST(ProcessLauncher, ExecFailuresAreLaunchErrors) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec missing;
  missing.job_id = "j-missing";
  missing.argv = {"synergy-no-such-binary"};
  missing.log_dir = logs.path();
  absl::StatusOr<pid_t> pid = launcher.Launch(missing);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(pid.status().message(),
            "job j-missing epoch 0: cannot exec its command[0]: "
            "No such file or directory");

  WriteAll(logs / "not-executable", "echo hi\n");
  LaunchSpec forbidden = missing;
  forbidden.argv = {logs / "not-executable"};
  pid = launcher.Launch(forbidden);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(pid.status().message(), HasSubstr("Permission denied"));

  LaunchSpec bad_dir = ShellSpec(logs, "j-dir", "true");
  bad_dir.work_dir = logs / "no-such-dir";
  pid = launcher.Launch(bad_dir);
  ASSERT_FALSE(pid.ok());
  EXPECT_THAT(pid.status().message(),
              HasSubstr("cannot chdir to '" + bad_dir.work_dir + "': No such file or directory"));

  EXPECT_TRUE(launcher.running().empty());
  EXPECT_TRUE(launcher.Poll().empty()) << "a failed launch is not also an exit";
}

TEST(ProcessLauncher, RejectsBadSpecsAndDuplicateInstances) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec no_argv = ShellSpec(logs, "j-a", "true");
  no_argv.argv.clear();
  EXPECT_EQ(launcher.Launch(no_argv).status().code(), absl::StatusCode::kInvalidArgument);
  LaunchSpec slash = ShellSpec(logs, "../j", "true");
  EXPECT_EQ(launcher.Launch(slash).status().code(), absl::StatusCode::kInvalidArgument);
  LaunchSpec no_logs = ShellSpec(logs, "j-a", "true");
  no_logs.log_dir.clear();
  EXPECT_EQ(launcher.Launch(no_logs).status().code(), absl::StatusCode::kInvalidArgument);

  LaunchSpec spec = ShellSpec(logs, "j-dup", "sleep 30");
  absl::StatusOr<pid_t> pid = launcher.Launch(spec);
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(launcher.Launch(spec).status().code(), absl::StatusCode::kAlreadyExists);
  std::vector<ProcessLauncher::Running> running = launcher.running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].job_id, "j-dup");
  EXPECT_EQ(running[0].pid, *pid);
  EXPECT_FALSE(running[0].stopping);

  launcher.Stop("j-dup", 1, milliseconds(200));
  running = launcher.running();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_TRUE(running[0].stopping);
  EXPECT_EQ(PollForExits(launcher).size(), 1u);
}

TEST(ProcessLauncher, StopAllEndsEverythingWithinGracePlusASecond) {
  TempDir logs;
  ProcessLauncher launcher{Cgroups()};
  LaunchSpec polite = ShellSpec(logs, "j-polite", "sleep 30");
  LaunchSpec stubborn = ShellSpec(logs, "j-stubborn", "trap '' TERM; echo ready; sleep 30");
  ASSERT_TRUE(launcher.Launch(polite).ok());
  ASSERT_TRUE(launcher.Launch(stubborn).ok());
  ASSERT_TRUE(WaitForFileToContain(OutLog(stubborn), "ready"));

  const auto start = std::chrono::steady_clock::now();
  launcher.StopAll(milliseconds(100));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(1100));
  EXPECT_TRUE(launcher.running().empty());
  std::vector<ProcessExit> exits = launcher.Poll();
  ASSERT_EQ(exits.size(), 2u);
  for (const ProcessExit& e : exits) {
    EXPECT_TRUE(e.stopped_by_us) << e.job_id;
    EXPECT_EQ(e.signal, e.job_id == "j-polite" ? SIGTERM : SIGKILL) << e.job_id;
  }
}

TEST(FormatIdList, CollapsesRunsIntoRanges) {
  EXPECT_EQ(service::FormatIdList({3, 0, 1}), "0-1,3");
  EXPECT_EQ(service::FormatIdList({0, 1, 2, 4, 5, 7}), "0-2,4-5,7");
  EXPECT_EQ(service::FormatIdList({5, 5}), "5");
  EXPECT_EQ(service::FormatIdList({}), "");
}

// The lab machines' hybrid layout: v1 cpuset and memory hierarchies, and a v2
// tree at unified/ without those controllers. The agent's memory cgroup is
// /agent, its cpuset cgroup the root.
class FakeHybridTree : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteAll(root / "unified/cgroup.controllers", "hugetlb\n");
    WriteAll(root / "cpuset/cpuset.cpus", "0-3\n");
    WriteAll(root / "cpuset/cpuset.mems", "0\n");
    WriteAll(root / "memory/memory.limit_in_bytes", "9223372036854771712\n");
    WriteAll(root / "memory/agent/memory.limit_in_bytes", "9223372036854771712\n");
    WriteAll(root / "self_cgroup", "4:memory:/agent\n3:cpuset:/\n2:cpu,cpuacct:/\n0::/\n");
  }
  Cgroups Detect() { return Cgroups::Detect(root.path(), root.path(), root / "self_cgroup"); }

  TempDir root;
};

TEST_F(FakeHybridTree, DetectUsesV1UnderTheAgentsOwnCgroups) {
  Cgroups cgroups = Detect();
  EXPECT_TRUE(cgroups.cpuset());
  EXPECT_TRUE(cgroups.memory());
  EXPECT_EQ(cgroups.Describe(), "cpuset: v1 " + (root / "cpuset/synergy") + ", memory: v1 " +
                                    (root / "memory/agent/synergy"));
  EXPECT_EQ(ReadAll(root / "cpuset/synergy/cpuset.cpus"), "0-3") << "copied from the parent";
  EXPECT_EQ(ReadAll(root / "cpuset/synergy/cpuset.mems"), "0");
}

TEST_F(FakeHybridTree, PlaceWritesLimitsAndPid) {
  Cgroups cgroups = Detect();
  ASSERT_TRUE(cgroups.Place(4242, "j-7.2", {3, 0, 1}, int64_t{1} << 30).ok());
  const std::string cpuset = root / "cpuset/synergy/j-7.2/";
  const std::string memory = root / "memory/agent/synergy/j-7.2/";
  EXPECT_EQ(ReadAll(cpuset + "cpuset.cpus"), "0-1,3");
  EXPECT_EQ(ReadAll(cpuset + "cpuset.mems"), "0");
  EXPECT_EQ(ReadAll(cpuset + "cgroup.procs"), "4242");
  EXPECT_EQ(ReadAll(memory + "memory.limit_in_bytes"), "1073741824");
  EXPECT_EQ(ReadAll(memory + "cgroup.procs"), "4242");
}

TEST_F(FakeHybridTree, PlaceSkipsControllersWithNothingToEnforce) {
  Cgroups cgroups = Detect();
  ASSERT_TRUE(cgroups.Place(4242, "j-free.0", {}, 0).ok());
  EXPECT_FALSE(fs::exists(root / "cpuset/synergy/j-free.0"));
  EXPECT_FALSE(fs::exists(root / "memory/agent/synergy/j-free.0"));
}

TEST_F(FakeHybridTree, CpuTimeLimitsOnlyWhenAskedFor) {
  WriteAll(root / "cpu/cpu.cfs_quota_us", "-1\n");
  Cgroups pinned = Detect();
  EXPECT_FALSE(pinned.cpu()) << "nodes without cpu_slots do not look for the cpu controller";
  Cgroups slots = Cgroups::Detect(root.path(), root.path(), root / "self_cgroup", true);
  ASSERT_TRUE(slots.cpu());
  ASSERT_TRUE(slots.Place(4242, "j-8.1", {0, 1, 2, 3}, 0, 1.5).ok());
  const std::string cpu = root / "cpu/synergy/j-8.1/";
  EXPECT_EQ(ReadAll(cpu + "cpu.cfs_period_us"), "20000");
  EXPECT_EQ(ReadAll(cpu + "cpu.cfs_quota_us"), "30000");  // 1.5 cores of each period
  EXPECT_EQ(ReadAll(cpu + "cgroup.procs"), "4242");
  EXPECT_EQ(ReadAll(root / "cpuset/synergy/j-8.1/cpuset.cpus"), "0-3");
  // Asked for a limit with no cpu controller: placed elsewhere, and the
  // caller hears that the limit is not enforced.
  absl::Status unenforced = pinned.Place(4243, "j-9.1", {0}, 0, 0.5);
  EXPECT_FALSE(unenforced.ok());
  EXPECT_THAT(std::string(unenforced.message()), HasSubstr("not enforced"));
  EXPECT_EQ(ReadAll(root / "cpuset/synergy/j-9.1/cgroup.procs"), "4243");
}

TEST_F(FakeHybridTree, AProfilingLaunchMaySetItsOwnCpuTimeLimit) {
  WriteAll(root / "cpu/cpu.cfs_quota_us", "-1\n");
  TempDir logs;
  ProcessLauncher launcher{Cgroups::Detect(root.path(), root.path(), root / "self_cgroup", true)};
  const std::string script = "echo \"${SYNERGY_CPU_LIMIT_FILE-unset} ${SYNERGY_CPU_PERIOD_US-unset}\"; "
                             "[ -n \"$SYNERGY_CPU_LIMIT_FILE\" ] && printf 5000 > \"$SYNERGY_CPU_LIMIT_FILE\"; exit 0";
  LaunchSpec profiling = ShellSpec(logs, "j-prof", script);
  profiling.cpu_ids = {0, 1};
  profiling.cpu_cores = 1.5;
  profiling.delegate_cpu_limit = true;
  LaunchSpec training = ShellSpec(logs, "j-train", script);
  training.cpu_ids = {0, 1};
  training.cpu_cores = 1.5;
  ASSERT_TRUE(launcher.Launch(profiling).ok());
  ASSERT_TRUE(launcher.Launch(training).ok());
  ASSERT_EQ(PollForExits(launcher, 2).size(), 2u);
  const std::string quota = root / "cpu/synergy/j-prof.1/cpu.cfs_quota_us";
  EXPECT_EQ(ReadAll(OutLog(profiling)), quota + " 20000\n");
  EXPECT_EQ(ReadAll(quota), "5000") << "the job lowered its own limit";
  EXPECT_EQ(ReadAll(OutLog(training)), "unset unset\n");
  EXPECT_EQ(ReadAll(root / "cpu/synergy/j-train.1/cpu.cfs_quota_us"), "30000");
}

TEST_F(FakeHybridTree, PlaceErrorsNameTheFileAndKeepTheOtherController) {
  Cgroups cgroups = Detect();
  fs::create_directories(root / "cpuset/synergy/j-bad.0/cgroup.procs");  // unwritable
  absl::Status status = cgroups.Place(4242, "j-bad.0", {1}, 1000);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(root / "cpuset/synergy/j-bad.0/cgroup.procs"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("Is a directory"));
  EXPECT_EQ(ReadAll(root / "memory/agent/synergy/j-bad.0/cgroup.procs"), "4242");

  EXPECT_EQ(cgroups.Place(1, "a/b", {1}, 0).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(FakeHybridTree, LauncherConfinesTheChildBeforeItRuns) {
  TempDir logs;
  ProcessLauncher launcher{Detect()};
  LaunchSpec spec = ShellSpec(logs, "j-conf", "exit 0");
  spec.cpu_ids = {0};
  spec.mem_bytes = 1 << 20;
  absl::StatusOr<pid_t> pid = launcher.Launch(spec);
  ASSERT_TRUE(pid.ok()) << pid.status();
  ASSERT_EQ(PollForExits(launcher).size(), 1u);
  EXPECT_EQ(ReadAll(root / "cpuset/synergy/j-conf.1/cgroup.procs"), std::to_string(*pid));
  EXPECT_EQ(ReadAll(root / "cpuset/synergy/j-conf.1/cpuset.cpus"), "0");
  EXPECT_EQ(ReadAll(root / "memory/agent/synergy/j-conf.1/memory.limit_in_bytes"), "1048576");
}

TEST_F(FakeHybridTree, ReconfineChangesTheLimitsOfARunningJobInPlace) {
  WriteAll(root / "cpu/cpu.cfs_quota_us", "-1\n");
  TempDir logs;
  ProcessLauncher launcher{Cgroups::Detect(root.path(), root.path(), root / "self_cgroup", true)};
  LaunchSpec spec = ShellSpec(logs, "j-res", "sleep 5");
  spec.cpu_ids = {0, 1};
  spec.mem_bytes = 1 << 20;
  spec.cpu_cores = 1.5;
  ASSERT_TRUE(launcher.Launch(spec).ok());
  const std::string cpuset = root / "cpuset/synergy/j-res.1/";
  const std::string memory = root / "memory/agent/synergy/j-res.1/";
  const std::string cpu = root / "cpu/synergy/j-res.1/";
  ASSERT_TRUE(launcher.Reconfine("j-res", 1, {0, 1, 2}, 2 << 20, 2.5, /*memory_grows=*/true).ok());
  EXPECT_EQ(ReadAll(cpuset + "cpuset.cpus"), "0-2");
  EXPECT_EQ(ReadAll(memory + "memory.limit_in_bytes"), "2097152");
  EXPECT_EQ(ReadAll(cpu + "cpu.cfs_quota_us"), "50000");
  ASSERT_TRUE(launcher.Reconfine("j-res", 1, {2}, 1 << 19, 0.5, /*memory_grows=*/false).ok());
  EXPECT_EQ(ReadAll(cpuset + "cpuset.cpus"), "2");
  EXPECT_EQ(ReadAll(memory + "memory.limit_in_bytes"), "524288");
  EXPECT_EQ(ReadAll(cpu + "cpu.cfs_quota_us"), "10000");
  EXPECT_EQ(ReadAll(cpuset + "cgroup.procs"), ReadAll(memory + "cgroup.procs")) << "still the same process";
  EXPECT_EQ(launcher.Reconfine("j-res", 2, {0}, 0, 0, true).code(), absl::StatusCode::kNotFound)
      << "another epoch does not run";
  launcher.Stop("j-res", 1, std::chrono::milliseconds(100));
  ASSERT_EQ(PollForExits(launcher).size(), 1u);
  EXPECT_EQ(launcher.Reconfine("j-res", 1, {0}, 0, 0, true).code(), absl::StatusCode::kNotFound);
}

TEST(Cgroups, DetectFindsNothingInAnEmptyTree) {
  TempDir root;
  Cgroups cgroups = Cgroups::Detect(root.path(), root.path(), root / "self_cgroup");
  EXPECT_FALSE(cgroups.cpuset());
  EXPECT_FALSE(cgroups.memory());
  EXPECT_EQ(cgroups.Describe(), "none");
  EXPECT_TRUE(cgroups.Place(4242, "j-1.0", {0}, 1000).ok()) << "nothing to enforce with";
  EXPECT_EQ(fs::directory_iterator(root.path()), fs::directory_iterator())
      << "Detect and Place wrote nothing";
}

TEST(Cgroups, DetectPrefersV2WhenItOffersTheControllers) {
  TempDir root;
  WriteAll(root / "cgroup.controllers", "cpuset cpu io memory pids\n");
  WriteAll(root / "cpuset/cpuset.cpus", "0-3\n");  // a v1 cpuset too: v2 still wins
  WriteAll(root / "self_cgroup", "0::/\n");
  Cgroups cgroups = Cgroups::Detect(root.path(), root.path(), root / "self_cgroup");
  EXPECT_EQ(cgroups.Describe(), "cpuset: v2 " + (root / "synergy") + ", memory: v2 " +
                                    (root / "synergy"));
  EXPECT_THAT(ReadAll(root / "synergy/cgroup.subtree_control"), HasSubstr("+memory"));

  ASSERT_TRUE(cgroups.Place(4242, "j-2.0", {2, 3}, 5000).ok());
  EXPECT_EQ(ReadAll(root / "synergy/j-2.0/cpuset.cpus"), "2-3");
  EXPECT_EQ(ReadAll(root / "synergy/j-2.0/memory.max"), "5000");
  EXPECT_EQ(ReadAll(root / "synergy/j-2.0/cgroup.procs"), "4242");
}

}  // namespace
}  // namespace synergy::node
