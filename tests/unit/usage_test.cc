// synergyctl usage: per user or tenant, the jobs, resource-hours held and
// mean wait and JCT, most GPU-hours first, then the total.
#include "cli/usage.h"

#include "gtest/gtest.h"

namespace synergy::cli {
namespace {

v1::Job Job(const std::string& owner, const std::string& tenant, double gpu_h, int64_t wait_s, int64_t jct_s) {
  v1::Job j;
  j.set_owner(owner);
  j.mutable_spec()->set_tenant(tenant);
  j.set_gpu_seconds(gpu_h * 3600);
  j.set_cpu_seconds(gpu_h * 4 * 3600);
  j.set_mem_gb_seconds(gpu_h * 24 * 3600);
  j.set_submitted_unix_ms(1000000);
  if (wait_s >= 0) j.set_first_launch_unix_ms(1000000 + wait_s * 1000);
  if (jct_s >= 0) j.set_finished_unix_ms(1000000 + jct_s * 1000);
  return j;
}

TEST(Usage, SumsPerUserMostGpuHoursFirstThenTheTotal) {
  const std::vector<v1::Job> jobs = {Job("alice", "vision", 2, 10, 100), Job("bob", "nlp", 5, 30, -1),
                                     Job("alice", "vision", 1, 20, 300), Job("carol", "", 0, -1, -1)};
  const std::vector<UsageRow> rows = SumUsage(jobs, "user");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].key, "bob");
  EXPECT_EQ(rows[1].key, "alice");
  EXPECT_EQ(rows[1].jobs, 2);
  EXPECT_DOUBLE_EQ(rows[1].gpu_hours, 3);
  EXPECT_DOUBLE_EQ(rows[1].cpu_hours, 12);
  EXPECT_DOUBLE_EQ(rows[1].MeanWaitS(), 15);
  EXPECT_DOUBLE_EQ(rows[1].MeanJctS(), 200);
  EXPECT_EQ(rows[2].key, "carol");
  EXPECT_EQ(rows[3].key, "total");
  EXPECT_EQ(rows[3].jobs, 4);
  EXPECT_DOUBLE_EQ(rows[3].gpu_hours, 8);
  EXPECT_DOUBLE_EQ(rows[3].MeanWaitS(), 20);  // of the 3 that launched
  const std::vector<UsageRow> tenants = SumUsage(jobs, "tenant");
  ASSERT_EQ(tenants.size(), 4u);
  EXPECT_EQ(tenants[0].key, "nlp");
  EXPECT_EQ(tenants[2].key, "-");  // no tenant
}

TEST(Usage, CsvAndJsonSayNothingWhereNothingLaunchedOrEnded) {
  const std::vector<UsageRow> rows = SumUsage({Job("bob", "nlp", 5, -1, -1)}, "tenant");
  EXPECT_EQ(UsageCsv(rows, "tenant"),
            "tenant,jobs,gpu_hours,cpu_hours,gb_hours,mean_wait_s,mean_jct_s\n"
            "nlp,1,5.0000,20.0000,120.0000,,\n"
            "total,1,5.0000,20.0000,120.0000,,\n");
  const std::string json = UsageJson(rows, "tenant");
  EXPECT_NE(json.find("{\"tenant\": \"nlp\", \"jobs\": 1, \"gpu_hours\": 5.0000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"mean_wait_s\": null"), std::string::npos) << json;
  const std::string table = UsageTable(rows, "tenant");
  EXPECT_EQ(table.substr(0, table.find('\n')), "TENANT  JOBS  GPU-H  CPU-H  GB-H   MEAN WAIT  MEAN JCT");
  EXPECT_FALSE(CheckUsageKey("group").ok());
  EXPECT_EQ(CheckUsageKey("group").message(), "--by: 'group' is not user or tenant");
}

}  // namespace
}  // namespace synergy::cli
