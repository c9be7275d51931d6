// synergyctl's tables and describe output print what the daemon sends with
// every control character escaped: a hostile job name or node name cannot
// reach the terminal as an escape sequence or forge a line.
#include "cli/tables.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "service/escape.h"

namespace synergy::cli {
namespace {

constexpr const char* kHostile = "evil\x1b]0;owned\x07\x1b[2J\rrow\nforged\xc2\x9b\xe2\x80\xae";
constexpr const char* kShown = "evil\\x1b]0;owned\\x07\\x1b[2J\\rrow\\nforged\\u009b\\u202e";

// Every line of `out` is printable: the only control characters left are
// the line ends, and there are `lines` of them.
::testing::AssertionResult PrintableLines(const std::string& out, long lines) {
  const long newlines = std::count(out.begin(), out.end(), '\n');
  if (newlines != lines) {
    return ::testing::AssertionFailure() << newlines << " lines, expected " << lines << ":\n" << out;
  }
  std::string rest = out;
  rest.erase(std::remove(rest.begin(), rest.end(), '\n'), rest.end());
  if (!service::IsPrintableText(rest)) return ::testing::AssertionFailure() << "unescaped: " << out;
  return ::testing::AssertionSuccess();
}

v1::Job HostileJob() {
  v1::Job j;
  j.set_id(absl::StrCat("j-1", kHostile));
  j.mutable_spec()->set_name(kHostile);
  j.mutable_spec()->set_model(kHostile);
  j.mutable_spec()->set_tenant(kHostile);
  j.mutable_spec()->set_gpus(1);
  j.mutable_spec()->add_command("sh");
  j.mutable_spec()->add_command(kHostile);
  j.set_state(v1::JOB_STATE_RUNNING);
  j.set_reason(kHostile);
  j.set_checkpoint_path(kHostile);
  v1::LeaseSlice* s = j.mutable_lease()->add_slices();
  s->set_node(kHostile);
  s->add_gpu_ids(0);
  j.mutable_lease()->set_epoch(3);
  v1::JobEvent* e = j.add_events();
  e->set_unix_ms(1);
  e->set_text(kHostile);
  return j;
}

TEST(Tables, JobsTableEscapesEveryCell) {
  for (bool wide : {false, true}) {
    const std::string out = JobsTable({HostileJob()}, wide, 1000);
    EXPECT_TRUE(PrintableLines(out, 2)) << "wide " << wide;
    EXPECT_NE(out.find(kShown), std::string::npos) << out;
  }
}

TEST(Tables, NodesTableEscapesEveryCell) {
  v1::Node n;
  n.set_name(kHostile);
  n.set_address(kHostile);
  n.set_cgroups(kHostile);
  n.add_jobs(kHostile);
  n.set_alive(true);
  for (bool wide : {false, true}) {
    const std::string out = NodesTable({n}, wide, 1000);
    EXPECT_TRUE(PrintableLines(out, 2)) << "wide " << wide;
    EXPECT_NE(out.find(kShown), std::string::npos) << out;
  }
}

TEST(Tables, AJobsRowIsShownAgainByWatchWhenWhatItSaysChangesNotWhenTheClockMoves) {
  v1::Job j;
  j.set_id("j-000001");
  j.set_state(v1::JOB_STATE_RUNNING);
  j.mutable_lease()->set_epoch(3);
  j.mutable_lease()->add_slices()->set_node("n1");
  const std::string before = JobRowSignature(j);
  j.set_iterations_done(500);
  j.set_throughput(12.5);
  j.set_updated_unix_ms(99999);
  EXPECT_EQ(JobRowSignature(j), before);  // progress and time: the same row
  j.mutable_lease()->set_epoch(4);
  EXPECT_NE(JobRowSignature(j), before);
  v1::Job held = j;
  held.set_held(true);
  EXPECT_NE(JobRowSignature(held), JobRowSignature(j));
  v1::Job moved = j;
  moved.mutable_lease()->mutable_slices(0)->set_node("n2");
  EXPECT_NE(JobRowSignature(moved), JobRowSignature(j));
}

TEST(Tables, NodesWideLeavesCgroupsToDescribe) {
  v1::Node n;
  n.set_name("n1");
  n.set_cgroups("cgroup v2 at /sys/fs/cgroup/synergy");
  n.set_alive(true);
  EXPECT_EQ(NodesTable({n}, true, 1000).find("cgroup v2"), std::string::npos);
  EXPECT_NE(DescribeNode(n, 1000).find("cgroup v2"), std::string::npos);
}

TEST(Tables, ColumnsAlignOnTheEscapedText) {
  const std::string out = Table({{"A", "B"}, {"x\ny", "z"}});
  EXPECT_EQ(out, "A     B\nx\\ny  z\n");
}

// A waiting job counts down to the next round the daemon said it would
// run, in its reason and on a line of its own.
TEST(Tables, AWaitingJobCountsDownToTheNextRound) {
  v1::Job job;
  job.set_id("j-000003");
  job.set_state(v1::JOB_STATE_QUEUED);
  job.set_reason("waiting: 1 job ahead in fifo order");
  job.set_next_round_unix_ms(43000);
  job.set_jobs_ahead(1);
  const std::string out = DescribeJob(job, 1000);
  EXPECT_NE(out.find("waiting: 1 job ahead in fifo order; next round in 42s"), std::string::npos) << out;
  EXPECT_NE(out.find("Next round:"), std::string::npos) << out;
  EXPECT_NE(JobsTable({job}, false, 1000).find("next round in 42s"), std::string::npos);
  job.set_next_round_unix_ms(0);
  EXPECT_EQ(DescribeJob(job, 1000).find("Next round"), std::string::npos);
}

TEST(Tables, DescribeJobEscapesEveryLine) {
  const v1::Job job = HostileJob();
  const std::string out = DescribeJob(job, 1000);
  const long lines = std::count(out.begin(), out.end(), '\n');
  EXPECT_TRUE(PrintableLines(out, lines));
  // The same job with plain strings has as many lines: none was forged.
  v1::Job plain = job;
  plain.set_id("j-1");
  plain.mutable_spec()->set_name("n");
  plain.mutable_spec()->set_model("m");
  plain.mutable_spec()->set_tenant("t");
  plain.mutable_spec()->set_command(1, std::string("c"));
  plain.set_reason("r");
  plain.set_checkpoint_path("p");
  plain.mutable_lease()->mutable_slices(0)->set_node("n1");
  plain.mutable_events(0)->set_text("e");
  const std::string plain_out = DescribeJob(plain, 1000);
  EXPECT_EQ(lines, std::count(plain_out.begin(), plain_out.end(), '\n'));
  EXPECT_NE(out.find(absl::StrCat("Name:          ", kShown)), std::string::npos) << out;
  EXPECT_NE(out.find(absl::StrCat("Command:       sh ", kShown)), std::string::npos) << out;
}

TEST(Tables, ClusterSummaryEscapesPolicyAndMechanism) {
  v1::ClusterState c;
  c.set_policy(kHostile);
  c.set_mechanism("tune");
  const std::string out = ClusterSummary(c);
  EXPECT_TRUE(PrintableLines(out, 6));
  EXPECT_NE(out.find(absl::StrCat("Scheduler: ", kShown, " / tune")), std::string::npos) << out;
}

TEST(Tables, PlainNamesAreShownAsSent) {
  v1::Job j;
  j.set_id("j-000001");
  j.mutable_spec()->set_name("resnet18-imagenet (h\xc3\xa9llo)");
  j.mutable_spec()->set_gpus(1);
  j.set_reason("waiting for 2 GPUs");
  const std::string out = JobsTable({j}, false, 0);
  EXPECT_NE(out.find("j-000001  resnet18-imagenet (h\xc3\xa9llo)"), std::string::npos) << out;
  EXPECT_NE(out.find("waiting for 2 GPUs"), std::string::npos) << out;
}

}  // namespace
}  // namespace synergy::cli

namespace synergy::cli {
namespace {

// Issue 45, item 3: a profile a user can read.
TEST(Tables, DescribeJobShowsTheProfilesPointsItsKneeAndTheAllocation) {
  v1::Job job;
  job.set_id("j-000007");
  job.mutable_spec()->set_gpus(1);
  for (auto [cpus, it_s] : {std::pair{4.0, 16.0}, {2.0, 11.0}, {3.0, 15.0}}) {
    v1::ProfilePoint* p = job.mutable_measured_profile()->add_points();
    p->set_cpus(cpus);
    p->set_mem_gb(16);
    p->set_throughput(it_s);
  }
  v1::LeaseSlice* s = job.mutable_lease()->add_slices();
  s->set_node("n1");
  for (int i = 0; i < 3; ++i) s->add_cpu_ids(i);
  s->set_mem_gb(24);
  job.mutable_lease()->set_speedup(1.36);
  const std::string out = DescribeJob(job, 0);
  // By CPUs; 15 it/s is within 10% of the best 16: 3 CPUs is the knee.
  EXPECT_NE(out.find("  CPUS  MEM GB  IT/S\n  2     16.0    11.00\n  3     16.0    15.00  <- knee"), std::string::npos)
      << out;
  EXPECT_NE(out.find("Allocation:    3 CPUs, 24.0 GB (predicted speedup 1.36 over the proportional share; the knee: "
                     "3 CPUs, 16.0 GB)"),
            std::string::npos)
      << out;
  v1::Job none;
  none.set_id("j-000008");
  EXPECT_EQ(DescribeJob(none, 0).find("CPUS  MEM GB"), std::string::npos);
  EXPECT_EQ(DescribeJob(none, 0).find("Allocation"), std::string::npos);
}

}  // namespace
}  // namespace synergy::cli
