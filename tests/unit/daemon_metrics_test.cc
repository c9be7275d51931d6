// synergyd's /metrics text from a DaemonState driven through a job's life.
#include "daemon/server/metrics.h"

#include "daemon_state_fixture.h"
#include "gmock/gmock.h"

namespace synergy::daemon {
namespace {

using ::testing::HasSubstr;

TEST_F(DaemonStateTest, MetricsCountLeaseEndsByCauseAndObserveQueueWaitAndCompletion) {
  auto s = Open();
  AddNode(*s, "n1", 2, 8, 64, 0);
  const std::string done = *s->Submit(Spec(1), "alice", 0);
  const std::string cancelled = *s->Submit(Spec(1), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  const int64_t done_epoch = s->GetJob(done)->lease().epoch();
  const int64_t cancelled_epoch = s->GetJob(cancelled)->lease().epoch();
  Beat(*s, "n1", 2000);
  // Both launch 3 s after their submission: the node's report shows them.
  Beat(*s, "n1", 3000, {Running(done, done_epoch), Running(cancelled, cancelled_epoch)});
  ASSERT_TRUE(s->Cancel(cancelled, 4000).ok());
  Beat(*s, "n1", 9000, {}, {Exit(done, done_epoch, 0)});  // succeeds 9 s after submission
  const std::string text = RenderMetrics(*s, 10000);
  // Lease ends by cause; both jobs launched 3 s after their submission;
  // one succeeded 9 s after it; per node, in base units, the heartbeat 1 s
  // old.
  const char* const samples[] = {
      "synergy_leases_ended_total{cause=\"cancelled\"} 1\n",
      "synergy_leases_ended_total{cause=\"exited\"} 1\n",
      "synergy_leases_ended_total{cause=\"crashed\"} 0\n",
      "synergy_job_queue_wait_seconds_bucket{le=\"1\"} 0\n",
      "synergy_job_queue_wait_seconds_bucket{le=\"4\"} 2\n",
      "synergy_job_queue_wait_seconds_sum 6\n",
      "synergy_job_completion_seconds_count 1\n",
      "synergy_job_completion_seconds_sum 9\n",
      "synergy_node_gpus{node=\"n1\"} 2\n",
      "synergy_node_memory_bytes{node=\"n1\"} 68719476736\n",
      "synergy_node_heartbeat_age_seconds{node=\"n1\"} 1\n",
      "synergy_nodes{condition=\"ready\"} 1\n",
      "synergy_round_decision_seconds_count 1\n",
  };
  for (const char* sample : samples) EXPECT_THAT(text, HasSubstr(sample));
  // Prometheus' conventions: no _total but on counters, no non-base units.
  for (const char* bad : {"_gb", "_ms ", "_ms{", "gpus_total", "cpus_total"}) {
    EXPECT_THAT(text, ::testing::Not(HasSubstr(bad))) << bad;
  }
}

}  // namespace
}  // namespace synergy::daemon
