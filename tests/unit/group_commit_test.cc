// Group commit (daemon/state/group_commit.h): concurrent commits share
// transactions, each caller returns only once its own batch is stored, and
// a refused group refuses every batch in it.
#include "daemon/state/group_commit.h"

#include <filesystem>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"

#include "daemon/state/sqlite_store.h"
#include "faulty_store.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

Batch JobBatch(int i) {
  Batch b;
  v1::Job job;
  job.set_id("j-" + std::to_string(i));
  job.set_submitted_unix_ms(i);
  b.jobs.push_back(job);
  b.counters["next_job"] = i + 1;
  return b;
}

class GroupCommitTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() / ("synergy-group-" + std::to_string(getpid()) + ".db");
    Clean();
    auto real = SqliteStore::Open(path_.string());
    ASSERT_TRUE(real.ok()) << real.status();
    faults_ = std::make_shared<FaultyStore::Faults>();
    faults_->slow_ms = 20;
    store_ = std::make_unique<FaultyStore>(std::move(*real), faults_);
  }
  void TearDown() override {
    store_.reset();
    Clean();
  }
  void Clean() {
    for (const char* suffix : {"", "-wal", "-shm", ".lock"}) std::filesystem::remove(path_.string() + suffix);
  }
  // `n` threads commit one job each at once; their results.
  std::vector<absl::Status> CommitTogether(GroupCommit& group, int n) {
    std::vector<absl::Status> results(n);
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) threads.emplace_back([&, i] { results[i] = group.Commit(JobBatch(i)); });
    for (auto& t : threads) t.join();
    return results;
  }

  std::filesystem::path path_;
  std::shared_ptr<FaultyStore::Faults> faults_;
  std::unique_ptr<FaultyStore> store_;
};

TEST_F(GroupCommitTest, ConcurrentCommitsAllLand) {
  GroupCommit group(*store_);
  for (const absl::Status& st : CommitTogether(group, 16)) EXPECT_TRUE(st.ok()) << st;
  EXPECT_LE(group.groups(), 16);
  EXPECT_EQ(store_->LoadJobs()->size(), 16u);
  EXPECT_EQ(store_->LoadCounters()->at("next_job"), 16) << "a counter is the largest any batch set";
}

// The sharing itself, without relying on timing: the first commit is held
// inside the store while fifteen more queue behind it; once it is let go,
// the fifteen are one transaction.
TEST_F(GroupCommitTest, CommitsQueuedBehindOneInFlightAreStoredInOneTransaction) {
  GroupCommit group(*store_);
  absl::Notification in_store, let_go;
  bool first = true;
  faults_->slow_ms = 0;
  faults_->before_commit = [&] {
    if (!std::exchange(first, false)) return;
    in_store.Notify();
    let_go.WaitForNotification();
  };
  const Batch lead = JobBatch(0);
  std::thread leader([&] { EXPECT_TRUE(group.Commit(lead).ok()); });
  in_store.WaitForNotification();
  std::vector<Batch> queued;
  for (int i = 1; i < 16; ++i) queued.push_back(JobBatch(i));
  std::vector<GroupCommit::Ticket> tickets;
  for (const Batch& b : queued) tickets.push_back(group.Enqueue(b));
  let_go.Notify();
  for (GroupCommit::Ticket& t : tickets) EXPECT_TRUE(group.Wait(t).ok());
  leader.join();
  EXPECT_EQ(group.groups(), 2) << "the fifteen batches queued behind the first were not one transaction";
  EXPECT_EQ(faults_->committed, 2);
  EXPECT_EQ(store_->LoadJobs()->size(), 16u);
  EXPECT_EQ(store_->LoadCounters()->at("next_job"), 16);
}

TEST_F(GroupCommitTest, ARefusedGroupRefusesEveryBatchInIt) {
  GroupCommit group(*store_);
  faults_->refuse_commits = true;
  for (const absl::Status& st : CommitTogether(group, 8)) EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(store_->LoadJobs()->empty());
  faults_->refuse_commits = false;
  EXPECT_TRUE(group.Commit(JobBatch(1)).ok());
  EXPECT_EQ(store_->LoadJobs()->size(), 1u);
}

TEST(MergeBatch, LaterRecordsWinAndCountersOnlyGrow) {
  Batch a = JobBatch(5), b = JobBatch(3);
  b.jobs[0].set_id("j-5");
  b.jobs[0].set_reason("later");
  MergeBatch(a, b);
  ASSERT_EQ(a.jobs.size(), 2u);
  EXPECT_EQ(a.jobs.back().reason(), "later");  // upserted in order: the later wins
  EXPECT_EQ(a.counters.at("next_job"), 6);
}

}  // namespace
}  // namespace synergy::daemon
