// What a killed synergy-node leaves behind: the records of the processes it
// started (node/lease_records.h), and how the next one stops them
// (node/orphans.h), with real processes.
#include "node/orphans.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "node/lease_records.h"

namespace synergy::node {
namespace {

namespace fs = std::filesystem;

class OrphansTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "synergy-orphans-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A child in its own process group running `sleep 30`, as a job runs.
  static pid_t StartSleeper() {
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      ::execlp("sleep", "sleep", "30", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    return pid;
  }
  // A pid that no process has now (a child that exited and was reaped).
  static pid_t GonePid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
  }

  std::string dir_;
};

TEST_F(OrphansTest, RecordsAreKeptPerNodeAndForgotten) {
  LeaseRecords n1(dir_, "n1");
  ASSERT_TRUE(n1.Open().ok());
  EXPECT_EQ(fs::status(dir_ + "/running").permissions() & fs::perms::all, fs::perms::owner_all);
  n1.Keep({"j-000001", 3, 4242, 99, 17});
  n1.Keep({"j-000002", 4, 4343, 100, 17});
  LeaseRecords n2(dir_, "n2");
  n2.Keep({"j-000009", 5, 4444, 101, 18});
  std::vector<StartedProcess> loaded = n1.Load();
  ASSERT_EQ(loaded.size(), 2u) << "n2's record is n2's";
  EXPECT_EQ(loaded[0].job_id, "j-000001");
  EXPECT_EQ(loaded[0].epoch, 3);
  EXPECT_EQ(loaded[0].pid, 4242);
  EXPECT_EQ(loaded[0].start_ticks, 99u);
  EXPECT_EQ(loaded[0].owner, 17);
  n1.Forget("j-000001", 3);
  loaded = n1.Load();
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].job_id, "j-000002");
}

// The cgroups a node may sweep are those of the synergy-node processes that
// used its state_dir; after a start the dead ones are forgotten.
TEST_F(OrphansTest, TheOwnersOfAStateDirAreItsNodesProcessesLiveOrThisOne) {
  LeaseRecords records(dir_, "n1");
  ASSERT_TRUE(records.Open().ok());
  EXPECT_TRUE(records.Owners().empty());
  records.KeepOwners({}, 4242);
  EXPECT_EQ(records.Owners(), (std::set<pid_t>{4242}));
  records.KeepOwners({4242}, 5353);
  EXPECT_EQ(records.Owners(), (std::set<pid_t>{4242, 5353}));
  Cgroups none;
  StopOrphans(records, none, "n1", ::getpid(), std::chrono::milliseconds(100));
  EXPECT_EQ(records.Owners(), (std::set<pid_t>{::getpid()})) << "4242 and 5353 run no synergy-node";
  EXPECT_TRUE(LeaseRecords("", "n1").Owners().empty()) << "no state_dir, no owners";
}

TEST_F(OrphansTest, ARecordThatDoesNotParseIsRemovedNotBelieved) {
  LeaseRecords n1(dir_, "n1");
  ASSERT_TRUE(n1.Open().ok());
  std::ofstream(dir_ + "/running/n1.j-000001.3") << "j-000001 3 1 99 17\n";       // pid 1: never ours
  std::ofstream(dir_ + "/running/n1.j-000002.4") << "j-000009 4 4242 99 17\n";    // names another lease
  std::ofstream(dir_ + "/running/n1.j-000003.5") << "garbage\n";
  std::ofstream(dir_ + "/running/n1.j-000004.6.tmp") << "j-000004 6 4242 99 17\n";  // a write cut short
  EXPECT_TRUE(n1.Load().empty());
  EXPECT_TRUE(fs::is_empty(dir_ + "/running"));
}

TEST_F(OrphansTest, AStartTimeNamesOneProcessAndAnEndedOneHasNone) {
  EXPECT_GT(ProcessStartTicks(::getpid()), 0u);
  EXPECT_EQ(ProcessStartTicks(GonePid()), 0u);
  const pid_t sleeper = StartSleeper();
  EXPECT_GT(ProcessStartTicks(sleeper), 0u);
  ::kill(sleeper, SIGKILL);
  for (int i = 0; i < 100 && ProcessStartTicks(sleeper) != 0; ++i) ::usleep(10000);
  EXPECT_EQ(ProcessStartTicks(sleeper), 0u) << "a zombie has ended";
  ::waitpid(sleeper, nullptr, 0);
  EXPECT_FALSE(IsSynergyNode(::getpid()));
}

TEST_F(OrphansTest, AProcessLeftByADeadNodeIsStoppedAndReportedAsStoppedByTheNode) {
  LeaseRecords records(dir_, "n1");
  ASSERT_TRUE(records.Open().ok());
  const pid_t sleeper = StartSleeper();
  const pid_t dead_owner = GonePid();
  records.Keep({"j-000001", 7, sleeper, ProcessStartTicks(sleeper), dead_owner});
  records.Keep({"j-000002", 8, GonePid(), 12345, dead_owner});  // ended while no node ran
  Cgroups none;
  const std::vector<v1::ProcessExit> exits =
      StopOrphans(records, none, "n1", ::getpid(), std::chrono::milliseconds(2000));
  int status = 0;
  ASSERT_EQ(::waitpid(sleeper, &status, WNOHANG), sleeper) << "the orphan still runs";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "stopped with SIGTERM first";
  ASSERT_EQ(exits.size(), 2u);
  EXPECT_EQ(exits[0].job_id(), "j-000001");
  EXPECT_EQ(exits[0].epoch(), 7);
  EXPECT_TRUE(exits[0].stopped_by_node());
  EXPECT_EQ(exits[0].reason(), "stopped at node start: left running by a synergy-node that ended");
  EXPECT_EQ(exits[1].job_id(), "j-000002");
  EXPECT_TRUE(exits[1].stopped_by_node());
  EXPECT_EQ(exits[1].reason(), "gone while no synergy-node ran (its exit is unknown)");
  EXPECT_TRUE(records.Load().empty()) << "forgotten once reported";
}

TEST_F(OrphansTest, AReusedPidIsLeftAlone) {
  LeaseRecords records(dir_, "n1");
  ASSERT_TRUE(records.Open().ok());
  const pid_t sleeper = StartSleeper();
  // The record names this pid with another start time: another process.
  records.Keep({"j-000001", 7, sleeper, ProcessStartTicks(sleeper) + 1, GonePid()});
  Cgroups none;
  const std::vector<v1::ProcessExit> exits = StopOrphans(records, none, "n1", ::getpid(), std::chrono::milliseconds(500));
  EXPECT_EQ(::waitpid(sleeper, nullptr, WNOHANG), 0) << "a process that is not the job's was signalled";
  ASSERT_EQ(exits.size(), 1u);
  EXPECT_EQ(exits[0].reason(), "gone while no synergy-node ran (its exit is unknown)");
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, nullptr, 0);
}

TEST(JobGroupNames, OnlyThisNodesJobGroupsParse) {
  pid_t pid = 0;
  std::string job;
  int64_t epoch = 0;
  ASSERT_TRUE(ParseJobGroup("n1.4242.j-000001.7", "n1", &pid, &job, &epoch));
  EXPECT_EQ(pid, 4242);
  EXPECT_EQ(job, "j-000001");
  EXPECT_EQ(epoch, 7);
  EXPECT_FALSE(ParseJobGroup("n2.4242.j-000001.7", "n1", &pid, &job, &epoch)) << "another node's";
  EXPECT_FALSE(ParseJobGroup("n1.5.4242.j-000001.7", "n1", &pid, &job, &epoch)) << "node n1.5's";
  EXPECT_FALSE(ParseJobGroup("n1.x.j-000001.7", "n1", &pid, &job, &epoch));
  EXPECT_FALSE(ParseJobGroup("n1.4242.j-000001.x", "n1", &pid, &job, &epoch));
  EXPECT_FALSE(ParseJobGroup("n1.1.j-000001.7", "n1", &pid, &job, &epoch)) << "pid 1 is nobody's job group";
  EXPECT_FALSE(ParseJobGroup("n10.4242.j-000001.7", "n1", &pid, &job, &epoch));
}

}  // namespace
}  // namespace synergy::node
