// The progress board (daemon/agents/progress_board.h): it takes reports only under
// the lease the daemon published, caps them at the job's own iterations,
// keeps the highest count and the latest throughput, and a read sees them
// before they are folded. And the daemon keeps it in step with its leases:
// granted opens, ending closes (the agent must then hear where to stop).
#include "daemon/agents/progress_board.h"

#include "daemon_state_fixture.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

v1::ProgressReport Report(const std::string& job, int64_t epoch, int64_t done, double throughput = 1) {
  v1::ProgressReport r;
  r.set_job_id(job);
  r.set_epoch(epoch);
  r.set_iterations_done(done);
  r.set_throughput(throughput);
  return r;
}

// A lease open to progress: `epoch`, capped at `iterations`.
ProgressBoard::OpenLease Open(int64_t epoch, int64_t iterations) {
  ProgressBoard::OpenLease open;
  open.epoch = epoch;
  open.iterations = iterations;
  return open;
}

// Takes a report the way the service does, dropping the reply.
bool Take(ProgressBoard& board, const v1::ProgressReport& report) {
  v1::ProgressReply reply;
  return board.Take(report, reply);
}

TEST(ProgressBoard, TakesReportsOnlyUnderThePublishedLease) {
  ProgressBoard board;
  EXPECT_FALSE(Take(board, Report("j-000001", 3, 10))) << "nothing published";
  board.Publish("j-000001", Open(3, 0));
  EXPECT_FALSE(Take(board, Report("j-000001", 2, 10))) << "an older epoch";
  EXPECT_TRUE(Take(board, Report("j-000001", 3, 10)));
  board.Publish("j-000001", std::nullopt);
  EXPECT_FALSE(Take(board, Report("j-000001", 3, 20))) << "withdrawn";
  auto taken = board.TakeReports();
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken.at("j-000001").iterations_done, 10);
  EXPECT_TRUE(board.TakeReports().empty()) << "each report is taken once";
}

TEST(ProgressBoard, KeepsTheHighestCappedCountAndTheLatestThroughput) {
  ProgressBoard board;
  board.Publish("j-000001", Open(1, 100));
  ASSERT_TRUE(Take(board, Report("j-000001", 1, 60, 5)));
  ASSERT_TRUE(Take(board, Report("j-000001", 1, 40, 7)));  // late, out of order
  ASSERT_TRUE(Take(board, Report("j-000001", 1, 1000000000, 9)));
  std::vector<v1::Job> read(1);
  read[0].set_id("j-000001");
  read[0].set_iterations_done(50);
  board.Overlay(read);
  EXPECT_EQ(read[0].iterations_done(), 100) << "no further than the job's own iterations";
  EXPECT_EQ(read[0].throughput(), 9);
  const auto taken = board.TakeReports();
  EXPECT_EQ(taken.at("j-000001").iterations_done, 100);
  EXPECT_EQ(taken.at("j-000001").throughput, 9);
}

TEST_F(DaemonStateTest, TheBoardOpensAGrantedLeaseAndClosesItWhenItEnds) {
  auto [s, a, epoch] = OneLeasedJobUnderLas();
  ASSERT_TRUE(Take(s->progress_board(), Report(a, epoch, 7)));
  EXPECT_EQ(s->GetJob(a)->iterations_done(), 7) << "a read sees a report before it is folded";
  ASSERT_TRUE(s->Tick(10).ok());
  EXPECT_EQ(s->GetJob(a)->iterations_done(), 7) << "folded into the job's record";
  Beat(*s, "n1", 10);
  Beat(*s, "n1", 15, {Running(a, epoch)});  // launched
  // LAS ends the first lease for the second job: reports under it must go
  // to the daemon, which tells the agent the lease is ending.
  *s->Submit(Spec(1, "res18", 1000), "alice", 20);
  ASSERT_TRUE(s->RunRound(60000).ok());
  EXPECT_FALSE(Take(s->progress_board(), Report(a, epoch, 8)));
  auto reply = s->ReportProgress(Report(a, epoch, 8), 60010);
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_TRUE(reply->lease_ending());
}

TEST_F(DaemonStateTest, AReopenedDaemonPublishesTheLeasesItLoads) {
  int64_t epoch = 0;
  std::string a;
  {
    auto first = OneLeasedJobUnderLas();
    epoch = first.epoch;
    a = first.job;
  }
  auto s = Open(100);
  EXPECT_TRUE(Take(s->progress_board(), Report(a, epoch, 3)));
}

}  // namespace
}  // namespace synergy::daemon
