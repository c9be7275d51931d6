#include "sim/trace.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy::sim {
namespace {

using ::testing::HasSubstr;

class TraceTest : public ::testing::Test {
 protected:
  Cluster cluster_ = testing::DefaultClusterOrDie();
  ModelZoo zoo_ = testing::ZooOrDie();
  std::string ErrorOf(const std::string& text) {
    auto t = ParseTrace(text, "t.csv", zoo_, cluster_);
    EXPECT_FALSE(t.ok());
    return std::string(t.status().message());
  }
};

TEST_F(TraceTest, ParsesAndSortsByArrival) {
  auto t = ParseTrace("0,alexnet,409,8176,1\n1,gnmt,100,61,4\n\n2,m5,409,5,8\n", "t.csv", zoo_,
                      cluster_);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 3u);
  EXPECT_EQ((*t)[0].id, 1);
  EXPECT_EQ((*t)[1].id, 0);  // equal arrivals keep file order
  EXPECT_EQ((*t)[2].id, 2);
  EXPECT_EQ(FormatTraceLine((*t)[1], zoo_), "0,alexnet,409,8176,1\n");
}

TEST_F(TraceTest, TruncatedLineNamesLineAndMissingField) {
  const std::string e = ErrorOf("0,alexnet,409,8176,1\n1,gnmt,861\n");
  EXPECT_THAT(e, HasSubstr("t.csv:2: iterations"));
  EXPECT_THAT(e, HasSubstr("expected 5 fields"));
}

TEST_F(TraceTest, ASixthFieldSaysWhetherAJobCheckpoints) {
  auto t = ParseTrace("0,alexnet,1,10,1,0\n1,alexnet,2,10,1,1\n2,alexnet,3,10,1\n", "t.csv", zoo_, cluster_);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_FALSE((*t)[0].checkpoints);
  EXPECT_TRUE((*t)[1].checkpoints);
  EXPECT_TRUE((*t)[2].checkpoints) << "five fields: it checkpoints, as every job of the reference";
  EXPECT_EQ(FormatTraceLine((*t)[0], zoo_), "0,alexnet,1,10,1,0\n");
  EXPECT_EQ(FormatTraceLine((*t)[1], zoo_), "1,alexnet,2,10,1\n");
  EXPECT_THAT(ErrorOf("0,alexnet,1,10,1,yes\n"),
              HasSubstr("t.csv:1: checkpoints: 'yes': is not 0 (a plain process) or 1 (it checkpoints)"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,10,1,1,1\n"), HasSubstr("expected 5 or 6 fields"));
}

// A header names the columns, in any order, and what a trace recorded of
// each job beyond the five; FormatTrace writes them back as read.
TEST_F(TraceTest, AHeaderNamesTheColumnsAndTheRecordedFields) {
  const std::string text =
      "job_id,gpus,model,arrival_s,iterations,cpus,mem_gb,gpu_fraction,gpu_type,duration_s,user\n"
      "7,1,res18,60,1000,6,12.5,0.25,V100M32,3600,alice\n"
      "8,2,gnmt,30,50,,,,,,\n";
  auto t = ParseTrace(text, "t.csv", zoo_, cluster_);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 2u);
  const JobSpec& a = (*t)[1];
  EXPECT_EQ(a.id, 7);
  EXPECT_EQ(a.gpus, 1);
  EXPECT_EQ(a.requested_cpus, 6);
  EXPECT_EQ(a.requested_mem_gb, 12.5);
  EXPECT_EQ(a.gpu_fraction, 0.25);
  EXPECT_EQ(a.gpu_type, "V100M32");
  EXPECT_EQ(a.duration_s, 3600);
  EXPECT_EQ(a.user, "alice");
  const JobSpec& b = (*t)[0];
  EXPECT_EQ(b.id, 8);
  EXPECT_FALSE(b.has_recorded_fields()) << "empty cells: not recorded";
  auto again = ParseTrace(FormatTrace(*t, zoo_), "again.csv", zoo_, cluster_);
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << FormatTrace(*t, zoo_);
  ASSERT_EQ(again->size(), 2u);
  EXPECT_EQ((*again)[1].user, "alice");
  EXPECT_EQ((*again)[1].gpu_fraction, 0.25);
  EXPECT_EQ((*again)[1].requested_mem_gb, 12.5);
  EXPECT_EQ((*again)[0].gpus, 2);
  // Without recorded fields, the reference's lines, no header.
  EXPECT_EQ(FormatTrace({b}, zoo_), "8,gnmt,30,50,2\n");
}

TEST_F(TraceTest, ABadHeaderOrRecordedFieldNamesLineFieldAndValue) {
  EXPECT_THAT(ErrorOf("job_id,model,arrival_s,iterations,gpus,colour\n0,m5,0,1,1,red\n"),
              HasSubstr("t.csv:1: header: 'colour': is not a column"));
  EXPECT_THAT(ErrorOf("job_id,model,arrival_s,gpus\n0,m5,0,1\n"), HasSubstr("has no iterations column"));
  EXPECT_THAT(ErrorOf("job_id,model,model,arrival_s,iterations,gpus\n"), HasSubstr("'model': appears twice"));
  const std::string header = "job_id,model,arrival_s,iterations,gpus,cpus,gpu_fraction,user\n";
  EXPECT_THAT(ErrorOf(header + "0,m5,0,1,1,-2,,\n"), HasSubstr("t.csv:2: cpus: '-2': is not a number of CPUs"));
  EXPECT_THAT(ErrorOf(header + "0,m5,0,1,1,,1.5,\n"), HasSubstr("t.csv:2: gpu_fraction: '1.5'"));
  EXPECT_THAT(ErrorOf(header + "0,m5,0,1,1,,0,\n"), HasSubstr("gpu_fraction: '0'"));
  EXPECT_THAT(ErrorOf(header + "0,m5,0,1,1,,,a b\n"), HasSubstr("t.csv:2: user: 'a b': is not a name"));
  EXPECT_THAT(ErrorOf(header + "0,m5,0,1,1,,\n"), HasSubstr("t.csv:2: user: missing: expected 8 fields"));
  EXPECT_THAT(ErrorOf(header + "0,m5,0,1,1,,,,x\n"), HasSubstr("expected 8 fields (as the header says), found more"));
  EXPECT_THAT(ErrorOf("0,m5,0,1,1\njob_id,model,arrival_s,iterations,gpus\n"), HasSubstr("t.csv:2: job_id: 'job_id'"))
      << "a header only on the first line";
}

TEST_F(TraceTest, UnknownModel) {
  EXPECT_THAT(ErrorOf("0,vgg,1,1,1\n"), HasSubstr("t.csv:1: model: 'vgg': unknown model (the zoo has alexnet"));
}

TEST_F(TraceTest, ZeroAndNegativeGpus) {
  EXPECT_THAT(ErrorOf("0,alexnet,1,1,0\n"), HasSubstr("t.csv:1: gpus: '0'"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,1,-2\n"), HasSubstr("t.csv:1: gpus: '-2'"));
}

TEST_F(TraceTest, JobLargerThanTheCluster) {
  EXPECT_THAT(ErrorOf("0,alexnet,1,1,129\n"), HasSubstr("more than the cluster's 128 GPUs"));
}

TEST_F(TraceTest, BadNumbersAndDuplicates) {
  EXPECT_THAT(ErrorOf("x,alexnet,1,1,1\n"), HasSubstr("job_id"));
  EXPECT_THAT(ErrorOf("0,alexnet,-1,1,1\n"), HasSubstr("arrival_s"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,0,1\n"), HasSubstr("iterations"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,1,1\n0,gnmt,2,1,1\n"), HasSubstr("t.csv:2: job_id: '0': appears twice (first on line 1)"));
  EXPECT_THAT(ErrorOf(""), HasSubstr("no jobs"));
}

TEST_F(TraceTest, HostileNumbersNameFieldAndValue) {
  EXPECT_THAT(ErrorOf("99999999999999999999,alexnet,1,1,1\n"),
              HasSubstr("t.csv:1: job_id: '99999999999999999999': is not a non-negative integer"));
  EXPECT_THAT(ErrorOf("0,alexnet,nan,1,1\n"), HasSubstr("t.csv:1: arrival_s: 'nan': is not a number"));
  EXPECT_THAT(ErrorOf("0,alexnet,1e308,1,1\n"), HasSubstr("t.csv:1: arrival_s: '1e308': is not a number between 0"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,inf,1\n"), HasSubstr("t.csv:1: iterations: 'inf': is not a number > 0"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,1e999,1\n"), HasSubstr("t.csv:1: iterations: '1e999'"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,1e13,1\n"), HasSubstr("t.csv:1: iterations: '1e13'"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,1,4294967297\n"),
              HasSubstr("t.csv:1: gpus: '4294967297': is more than the cluster's 128 GPUs"));
  EXPECT_THAT(ErrorOf("0,alexnet,1,1,99999999999999999999\n"), HasSubstr("t.csv:1: gpus: '99999999999999999999'"));
}

TEST_F(TraceTest, LongAndControlCharacterLinesAreQuotedShort) {
  const std::string e = ErrorOf("0,alexnet,1,1,1," + std::string(1 << 20, ',') + "\n");
  EXPECT_THAT(e, HasSubstr("t.csv:1: line: '0,alexnet,1,1,1,,,,"));
  EXPECT_THAT(e, HasSubstr(",,,'... (1048592 bytes): expected 5 or 6 fields"));
  EXPECT_LT(e.size(), 300u);
  EXPECT_THAT(ErrorOf("0,\x1b[2Jvgg,1,1,1\n"), HasSubstr("model: '\\x1b[2Jvgg': unknown model"));
}

}  // namespace
}  // namespace synergy::sim
