// Job lists a page at a time, as summaries, and ended jobs retired into the
// history table after retain_ended_jobs: the table and every list stay
// bounded however long synergyd runs, and nothing ended is lost to
// accounting.
#include <string>
#include <vector>

#include "daemon/state/daemon_state.h"
#include "daemon/state/sqlite_store.h"
#include "daemon_state_fixture.h"
#include "gtest/gtest.h"
#include "service/request_limits.h"

namespace synergy::daemon {
namespace {

class JobRetentionTest : public DaemonStateTest {
 protected:
  static std::vector<std::string> PageIds(const DaemonState::JobPage& page) {
    std::vector<std::string> ids;
    for (const v1::Job& j : page.jobs) ids.push_back(j.id());
    return ids;
  }
  static v1::ListJobsRequest Page(int size, const std::string& token = "", bool retired = false) {
    v1::ListJobsRequest r;
    r.set_page_size(size);
    r.set_page_token(token);
    r.set_include_retired(retired);
    return r;
  }
};

TEST_F(JobRetentionTest, EndedJobsLeaveTheTableAfterTheRetentionAndStayInTheHistory) {
  config_.retain_ended_jobs_s = 60;
  auto s = Open();
  const std::string a = *s->Submit(Spec(1), "alice", 0);
  const std::string b = *s->Submit(Spec(1), "bob", 0);
  const std::string c = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->Cancel(a, 1000).ok());
  ASSERT_TRUE(s->Cancel(c, 2000).ok());
  ASSERT_TRUE(s->Tick(30'000).ok());
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0))), (std::vector<std::string>{a, b, c}));  // not yet
  ASSERT_TRUE(s->Tick(61'500).ok());  // a ended 60.5 s ago, c 59.5 s ago
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0))), (std::vector<std::string>{b, c}));
  ASSERT_TRUE(s->Tick(62'000).ok());  // looked for at most every 10 s
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0))), (std::vector<std::string>{b, c}));
  ASSERT_TRUE(s->Tick(72'000).ok());
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0))), (std::vector<std::string>{b}));
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0, "", true))), (std::vector<std::string>{a, b, c}));
  auto retired = s->GetJob(a);
  ASSERT_TRUE(retired.ok()) << retired.status();
  EXPECT_EQ(retired->state(), v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(retired->owner(), "alice");
  EXPECT_EQ(retired->spec().command(0), "true");
  EXPECT_EQ(s->GetJob("j-000099").status().code(), absl::StatusCode::kNotFound);
  // Retired for good: a reopened daemon loads only b, keeps counting ids,
  // and still lists all three with the history.
  s.reset();
  s = Open(80'000);
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0))), (std::vector<std::string>{b}));
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0, "", true))), (std::vector<std::string>{a, b, c}));
  EXPECT_EQ(*s->Submit(Spec(1), "alice", 81'000), "j-000004");
}

TEST_F(JobRetentionTest, ForeverRetainsEveryEndedJob) {
  config_.retain_ended_jobs_s = -1;
  auto s = Open();
  const std::string a = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->Cancel(a, 1000).ok());
  ASSERT_TRUE(s->Tick(int64_t{20} * 365 * 86400 * 1000).ok());
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0))), (std::vector<std::string>{a}));
}

TEST_F(JobRetentionTest, AJobWhoseLeaseIsStillEndingIsNotRetired) {
  config_.retain_ended_jobs_s = 1;
  config_.heartbeat_timeout_s = 3600;  // the node stays; its process runs on
  auto [s, id, epoch] = OneLeasedJobUnderLas();
  Beat(*s, "n1", 10, {Running(id, epoch)});
  ASSERT_TRUE(s->Cancel(id, 100).ok());
  // Its process has not exited: its stop is still owed, so it stays.
  ASSERT_TRUE(s->Tick(10'000).ok());
  Beat(*s, "n1", 10'100, {Running(id, epoch)});
  ASSERT_TRUE(s->Tick(20'000).ok());
  EXPECT_EQ(PageIds(*s->ListJobs(Page(0))), (std::vector<std::string>{id}));
  v1::ProcessExit exit;
  exit.set_job_id(id);
  exit.set_epoch(epoch);
  exit.set_exit_code(143);
  Beat(*s, "n1", 20'100, {}, {exit});
  ASSERT_TRUE(s->Tick(30'000).ok());
  EXPECT_TRUE(s->ListJobs(Page(0))->jobs.empty());
  EXPECT_EQ(s->GetJob(id)->state(), v1::JOB_STATE_CANCELLED);
}

TEST_F(JobRetentionTest, PagesFollowIdOrderAndListEachJobOnce) {
  config_.retain_ended_jobs_s = 60;
  auto s = Open();
  std::vector<std::string> ids;
  for (int i = 0; i < 7; ++i) ids.push_back(*s->Submit(Spec(1), i % 2 ? "bob" : "alice", i));
  ASSERT_TRUE(s->Cancel(ids[0], 10).ok());
  ASSERT_TRUE(s->Cancel(ids[1], 10).ok());
  ASSERT_TRUE(s->Tick(100'000).ok());  // ids[0] and ids[1] retired
  auto first = *s->ListJobs(Page(3, "", true));
  EXPECT_EQ(PageIds(first), (std::vector<std::string>{ids[0], ids[1], ids[2]}));
  EXPECT_EQ(first.next_page_token, ids[2]);
  // A job submitted between pages is on a later one.
  ids.push_back(*s->Submit(Spec(1), "alice", 100'001));
  auto second = *s->ListJobs(Page(3, first.next_page_token, true));
  EXPECT_EQ(PageIds(second), (std::vector<std::string>{ids[3], ids[4], ids[5]}));
  auto last = *s->ListJobs(Page(3, second.next_page_token, true));
  EXPECT_EQ(PageIds(last), (std::vector<std::string>{ids[6], ids[7]}));
  EXPECT_EQ(last.next_page_token, "");
  // Filters apply before the page is cut, in both sources.
  v1::ListJobsRequest bobs = Page(2, "", true);
  bobs.set_owner("bob");
  auto page = *s->ListJobs(bobs);
  EXPECT_EQ(PageIds(page), (std::vector<std::string>{ids[1], ids[3]}));
  bobs.set_page_token(page.next_page_token);
  EXPECT_EQ(PageIds(*s->ListJobs(bobs)), (std::vector<std::string>{ids[5]}));
  v1::ListJobsRequest cancelled = Page(0, "", true);
  cancelled.add_states(v1::JOB_STATE_CANCELLED);
  EXPECT_EQ(PageIds(*s->ListJobs(cancelled)), (std::vector<std::string>{ids[0], ids[1]}));
  v1::ListJobsRequest recent = Page(0, "", true);
  recent.set_submitted_since_unix_ms(5);
  EXPECT_EQ(PageIds(*s->ListJobs(recent)), (std::vector<std::string>{ids[5], ids[6], ids[7]}));
}

TEST_F(JobRetentionTest, ListsCarrySummariesWithoutCommandsEnvironmentsOrEvents) {
  auto s = Open();
  v1::JobSpec big = Spec(1);
  big.clear_command();
  for (int i = 0; i < 60; ++i) big.add_command(std::string(1000, 'x'));
  for (int i = 0; i < 100; ++i) big.mutable_env()->insert({"V" + std::to_string(i), std::string(1000, 'y')});
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(s->Submit(big, "alice", i).ok());
  auto page = *s->ListJobs(Page(0));
  ASSERT_EQ(page.jobs.size(), 20u);
  v1::ListJobsResponse reply;
  for (const v1::Job& j : page.jobs) {
    EXPECT_EQ(j.spec().command_size(), 0);
    EXPECT_EQ(j.spec().env_size(), 0);
    EXPECT_EQ(j.events_size(), 0);
    *reply.add_jobs() = j;
  }
  // ~160 KB a job in full; a summary is a few hundred bytes.
  EXPECT_LT(reply.ByteSizeLong(), 20u * 1024);
  EXPECT_EQ(s->GetJob(page.jobs[0].id())->spec().command_size(), 60);
}

TEST(RetiredJobStore, AJobWrittenAfterItsRetirementStaysRetired) {
  const std::string path = ::testing::TempDir() + "/retired-" + std::to_string(getpid()) + ".db";
  std::remove(path.c_str());
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  v1::Job job;
  job.set_id("j-000001");
  job.set_owner("alice");
  job.set_state(v1::JOB_STATE_SUCCEEDED);
  Batch put;
  put.PutJob(job);
  put.events.push_back({job.id(), v1::JobEvent()});
  ASSERT_TRUE((*store)->Commit(put).ok());
  Batch retire;
  retire.retired.push_back(job);
  ASSERT_TRUE((*store)->Commit(retire).ok());
  // A progress flush that read the job before it was retired.
  ASSERT_TRUE((*store)->Commit(put).ok());
  EXPECT_TRUE((*store)->LoadJobs()->empty());
  EXPECT_EQ((*store)->LoadRetiredJob(job.id())->owner(), "alice");
  EXPECT_EQ((*store)->LoadHistory(HistoryQuery{})->size(), 1u);
  EXPECT_EQ((*store)->LoadRetiredJob("j-000002").status().code(), absl::StatusCode::kNotFound);
  store->reset();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace synergy::daemon
