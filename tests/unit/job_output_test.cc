// Job output on a node (read in pieces for synergyctl logs, kept under a
// cap by rotation) and its relay in synergyd (a reader waits for the node
// that holds the output).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <atomic>
#include <thread>

#include "daemon/nodes/log_relay.h"
#include "gtest/gtest.h"
#include "node/job_output.h"

namespace synergy {
namespace {

namespace fs = std::filesystem;

class JobOutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("synergy-output-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  static v1::LogRequest Ask(const std::string& job, int64_t epoch, int64_t offset, int max_bytes = 0) {
    v1::LogRequest r;
    r.set_request_id(7);
    r.set_job_id(job);
    r.set_epoch(epoch);
    r.set_offset(offset);
    r.set_max_bytes(max_bytes);
    return r;
  }
  fs::path dir_;
};

TEST_F(JobOutputTest, APieceFromAnOffsetWithTheFilesSize) {
  Write("j-000001.3.out", "hello world\n");
  Write("j-000001.3.err", "warning\n");
  v1::LogChunk c = node::ReadJobOutput(dir_.string(), Ask("j-000001", 3, 6, 5));
  EXPECT_EQ(c.error(), "");
  EXPECT_EQ(c.request_id(), 7);
  EXPECT_EQ(c.offset(), 6);
  EXPECT_EQ(c.data(), "world");
  EXPECT_EQ(c.size(), 12);
  EXPECT_FALSE(c.rotated());
  v1::LogRequest err = Ask("j-000001", 3, 0);
  err.set_stderr(true);
  EXPECT_EQ(node::ReadJobOutput(dir_.string(), err).data(), "warning\n");
  // At the end: nothing, and the size says so.
  c = node::ReadJobOutput(dir_.string(), Ask("j-000001", 3, 12));
  EXPECT_EQ(c.data(), "");
  EXPECT_EQ(c.size(), 12);
}

TEST_F(JobOutputTest, AnOffsetPastTheEndReadsTheRotatedFileFromItsStart) {
  Write("j-000001.1.out", "new\n");
  v1::LogChunk c = node::ReadJobOutput(dir_.string(), Ask("j-000001", 1, 5000));
  EXPECT_TRUE(c.rotated());
  EXPECT_EQ(c.offset(), 0);
  EXPECT_EQ(c.data(), "new\n");
}

TEST_F(JobOutputTest, PathsOutsideTheLogDirLinksAndMissingFilesAreErrorsNotReads) {
  fs::create_directories(dir_ / "sub");
  Write("sub/secret", "secret\n");
  for (const std::string& job : {std::string("../etc/passwd"), std::string("sub/secret"), std::string("..")}) {
    v1::LogChunk c = node::ReadJobOutput(dir_.string(), Ask(job, 1, 0));
    EXPECT_NE(c.error(), "") << job;
    EXPECT_EQ(c.data(), "") << job;
  }
  fs::create_symlink(dir_ / "sub" / "secret", dir_ / "j-000002.1.out");
  v1::LogChunk linked = node::ReadJobOutput(dir_.string(), Ask("j-000002", 1, 0));
  EXPECT_NE(linked.error(), "");
  EXPECT_EQ(linked.data(), "");
  v1::LogChunk missing = node::ReadJobOutput(dir_.string(), Ask("j-000003", 1, 0));
  EXPECT_NE(missing.error().find("j-000003.1.out: no such file"), std::string::npos) << missing.error();
}

TEST_F(JobOutputTest, APieceIsAtMostAMebibyte) {
  Write("j-000001.1.out", std::string(3 << 20, 'x'));
  v1::LogChunk c = node::ReadJobOutput(dir_.string(), Ask("j-000001", 1, 0, 1 << 30));
  EXPECT_EQ(c.data().size(), 1u << 20);
  EXPECT_EQ(c.size(), 3 << 20);
}

TEST_F(JobOutputTest, FilesAtTheCapAreCopiedAsideAndEmptied) {
  Write("j-000001.1.out", std::string(100, 'a'));
  Write("j-000001.1.err", std::string(10, 'b'));
  Write("j-000001.1.out.1", "older");
  const auto rotated = node::RotateJobOutput(dir_.string(), {{"j-000001", 1}}, 100);
  ASSERT_EQ(rotated.size(), 1u);
  EXPECT_EQ(fs::file_size(dir_ / "j-000001.1.out"), 0u);
  EXPECT_EQ(fs::file_size(dir_ / "j-000001.1.out.1"), 100u);
  EXPECT_EQ(fs::file_size(dir_ / "j-000001.1.err"), 10u);
  EXPECT_TRUE(node::RotateJobOutput(dir_.string(), {{"j-000001", 1}}, 0).empty()) << "0: no cap";
}

// The node rotates as root: a link in place of the output or of its copy
// must not make it empty or overwrite another file.
TEST_F(JobOutputTest, RotationFollowsNoLink) {
  Write("victim", std::string(500, 'v'));
  fs::create_symlink(dir_ / "victim", dir_ / "j-000001.1.out");
  EXPECT_TRUE(node::RotateJobOutput(dir_.string(), {{"j-000001", 1}}, 100).empty());
  EXPECT_EQ(fs::file_size(dir_ / "victim"), 500u);
  Write("j-000002.1.out", std::string(200, 'a'));
  Write("other", "keep");
  fs::create_symlink(dir_ / "other", dir_ / "j-000002.1.out.1");
  ASSERT_EQ(node::RotateJobOutput(dir_.string(), {{"j-000002", 1}}, 100).size(), 1u);
  std::ifstream other(dir_ / "other");
  std::string kept;
  other >> kept;
  EXPECT_EQ(kept, "keep");
  EXPECT_FALSE(fs::is_symlink(dir_ / "j-000002.1.out.1"));
  EXPECT_EQ(fs::file_size(dir_ / "j-000002.1.out.1"), 200u);
}

TEST(LogRelay, AReaderGetsWhatTheNodeItAskedSends) {
  daemon::LogRelay relay;
  std::thread node([&] {
    std::vector<v1::LogRequest> asked;
    while ((asked = relay.TakeFor("n1")).empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(asked.size(), 1u);
    EXPECT_TRUE(relay.TakeFor("n1").empty()) << "handed over once";
    v1::LogChunk wrong;
    wrong.set_request_id(asked[0].request_id());
    EXPECT_FALSE(relay.Deliver("n2", wrong)) << "another node cannot answer n1's request";
    v1::LogChunk chunk;
    chunk.set_request_id(asked[0].request_id());
    chunk.set_data("output");
    EXPECT_TRUE(relay.Deliver("n1", chunk));
  });
  v1::LogRequest request;
  request.set_job_id("j-000001");
  auto got = relay.Fetch("n1", "alice", request, absl::Now() + absl::Seconds(10), [] { return false; });
  node.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->data(), "output");
}

TEST(LogRelay, ANodeThatDoesNotAnswerIsUnavailableAndALateAnswerIsDropped) {
  daemon::LogRelay relay;
  auto got = relay.Fetch("n1", "alice", v1::LogRequest{}, absl::Now() + absl::Milliseconds(50), [] { return false; });
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable);
  v1::LogChunk late;
  late.set_request_id(1);
  EXPECT_FALSE(relay.Deliver("n1", late));
  EXPECT_TRUE(relay.TakeFor("n1").empty());
}

TEST(LogRelay, AReaderThatLeftStopsWaitingAtOnce) {
  daemon::LogRelay relay;
  const absl::Time start = absl::Now();
  auto got = relay.Fetch("n1", "alice", v1::LogRequest{}, absl::Now() + absl::Seconds(60), [] { return true; });
  EXPECT_EQ(got.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

// One reader cannot take every slot; a node is handed a few a heartbeat.
// The readers wait until the test says stop (never a timeout), and each
// step waits for the event it needs (the refusals), not for a sleep.
TEST(LogRelay, OneReaderHasAFewSlotsAndANodeAFewRequestsABeat) {
  daemon::LogRelay relay;
  std::vector<std::thread> readers;
  std::atomic<int> refused{0};
  std::atomic<int> ended{0};
  std::atomic<bool> stop{false};
  for (int i = 0; i < daemon::LogRelay::kMaxWaitingPerReader + 2; ++i) {
    readers.emplace_back([&] {
      auto got = relay.Fetch("n1", "mallory", v1::LogRequest{}, absl::Now() + absl::Minutes(5),
                             [&] { return stop.load(); });
      if (got.status().code() == absl::StatusCode::kResourceExhausted) ++refused;
      ++ended;
    });
  }
  // The two readers past the limit are refused at once; the others wait.
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (refused.load() < 2 && absl::Now() < give_up) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_EQ(refused.load(), 2);
  EXPECT_EQ(ended.load(), 2) << "a reader within its slots stopped waiting";
  auto other = relay.Fetch("n1", "alice", v1::LogRequest{}, absl::Now() + absl::Milliseconds(20), [] { return false; });
  EXPECT_EQ(other.status().code(), absl::StatusCode::kUnavailable) << "alice waits like anyone: not refused";
  EXPECT_EQ(relay.TakeFor("n1").size(), static_cast<size_t>(daemon::LogRelay::kMaxPerHeartbeat));
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(refused.load(), 2);
}

}  // namespace
}  // namespace synergy
