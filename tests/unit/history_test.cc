#include "cli/history.h"

#include "gtest/gtest.h"
#include "sim/trace.h"
#include "test_support.h"

namespace synergy::cli {
namespace {

// 2026-12-04T21:00:00Z
constexpr int64_t kT0 = 1796418000000;

v1::Job Finished() {
  v1::Job j;
  j.set_id("j-000001");
  j.mutable_spec()->set_name("resnet, \"big\"");
  j.set_owner("alice");
  j.set_state(v1::JOB_STATE_SUCCEEDED);
  j.set_submitted_unix_ms(kT0);
  j.set_first_launch_unix_ms(kT0 + 30000);
  j.set_finished_unix_ms(kT0 + 330000);
  j.set_attained_service_ms(290000);
  j.set_attempts(3);
  j.mutable_spec()->set_gpus(2);
  j.set_gpu_seconds(580);
  return j;
}

v1::Job Waiting() {
  v1::Job j;
  j.set_id("j-000002");
  j.set_owner("bob");
  j.set_state(v1::JOB_STATE_QUEUED);
  j.set_submitted_unix_ms(kT0 + 60000);
  return j;
}

// -o trace: the succeeded jobs as a trace the simulator reads back, with
// arrivals from the first submission and the time each held its GPUs.
TEST(History, TraceIsWhatTheSimulatorReplays) {
  v1::Job a = Finished();
  a.mutable_spec()->set_model("res18");
  a.mutable_spec()->set_iterations(1200);
  a.mutable_spec()->set_gpus(2);
  a.mutable_spec()->set_uses_agent(true);
  v1::Job b = Finished();
  b.set_id("j-000007");
  b.mutable_spec()->set_model("gnmt");
  b.mutable_spec()->set_iterations(50);
  b.mutable_spec()->set_gpus(1);
  b.set_owner("bob smith");  // not a plain name: left out
  b.mutable_spec()->set_time_limit_s(7200);
  b.set_submitted_unix_ms(kT0 + 90500);
  v1::Job no_model = Finished();
  no_model.set_id("j-000009");
  const HistoryTraceOut out = HistoryTrace({a, b, no_model, Waiting()});
  EXPECT_EQ(out.written, 2);
  EXPECT_EQ(out.not_succeeded, 1);
  EXPECT_EQ(out.without_model_or_iterations, 1);
  const Cluster cluster = testing::DefaultClusterOrDie();
  const ModelZoo zoo = testing::ZooOrDie();
  auto jobs = sim::ParseTrace(out.trace, "history.csv", zoo, cluster);
  ASSERT_TRUE(jobs.ok()) << jobs.status() << "\n" << out.trace;
  ASSERT_EQ(jobs->size(), 2u);
  const sim::JobSpec& first = (*jobs)[0];
  EXPECT_EQ(first.id, 1);
  EXPECT_EQ(zoo.model(first.model).name, "res18");
  EXPECT_EQ(first.arrival_s, 0);
  EXPECT_EQ(first.iterations, 1200);
  EXPECT_EQ(first.gpus, 2);
  EXPECT_TRUE(first.checkpoints);
  EXPECT_EQ(first.duration_s, 290);
  EXPECT_EQ(first.user, "alice");
  EXPECT_EQ(first.time_limit_s, 0);
  EXPECT_EQ((*jobs)[1].time_limit_s, 7200);
  const sim::JobSpec& second = (*jobs)[1];
  EXPECT_EQ(second.id, 7);
  EXPECT_EQ(second.arrival_s, 90.5);
  EXPECT_FALSE(second.checkpoints) << "a plain process";
  EXPECT_EQ(second.user, "");
}

TEST(History, CsvHasSecondsAndUtcTimesAndQuotesWhatNeedsIt) {
  EXPECT_EQ(HistoryCsv({Finished(), Waiting()}),
            "id,name,user,submit,start,end,wait_s,run_s,jct_s,attempts,outcome,gpus,gpu_hours\n"
            "j-000001,\"resnet, \"\"big\"\"\",alice,2026-12-04T21:00:00.000Z,2026-12-04T21:00:30.000Z,"
            "2026-12-04T21:05:30.000Z,30.000,290.000,330.000,3,succeeded,2,0.1611\n"
            "j-000002,,bob,2026-12-04T21:01:00.000Z,,,,0.000,,0,queued,0,0.0000\n");
}

TEST(History, JsonSaysNullForWhatHasNotHappened) {
  const std::string json = HistoryJson({Waiting()});
  EXPECT_NE(json.find("\"start\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"jct_s\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"outcome\": \"queued\""), std::string::npos) << json;
  EXPECT_EQ(HistoryJson({}), "[]\n");
}

TEST(History, TableShowsDurationsAndTheWaitSoFar) {
  const std::string t = HistoryTable({Finished(), Waiting()}, kT0 + 120000);
  EXPECT_NE(t.find("30s"), std::string::npos) << t;    // waited
  EXPECT_NE(t.find("4m50s"), std::string::npos) << t;  // ran
  EXPECT_NE(t.find("5m30s"), std::string::npos) << t;  // JCT
  EXPECT_NE(t.find("1m0s"), std::string::npos) << t;   // still waiting, 1 min so far
}

TEST(History, SinceTakesADurationOrATimeAndFilters) {
  EXPECT_EQ(*ParseSince("2h", kT0), kT0 - 7200000);
  EXPECT_EQ(*ParseSince("90s", kT0), kT0 - 90000);
  EXPECT_EQ(*ParseSince("7d", kT0), kT0 - 7 * 86400000LL);
  EXPECT_EQ(*ParseSince("2026-12-04T21:00:00Z", 0), kT0);
  EXPECT_EQ(*ParseSince("2026-12-04T22:00:00.5+01:00", 0), kT0 + 500);
  for (const char* bad : {"", "yesterday", "-2h", "2026-13-01T00:00:00Z", "2026-12-04 21:00:00", "2h30"}) {
    auto r = ParseSince(bad, kT0);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("--since"), std::string::npos) << r.status();
  }
  const std::vector<v1::Job> since = JobsSince({Waiting(), Finished()}, kT0 + 1);
  ASSERT_EQ(since.size(), 1u);
  EXPECT_EQ(since[0].id(), "j-000002");
}

}  // namespace
}  // namespace synergy::cli
