// Job arrays at the edges: the index lists a spec may ask for and the
// refusals of the rest, the names an array's jobs go by, and how `get
// jobs` folds an array into one row.
#include "service/job_arrays.h"

#include "cli/array_rows.h"
#include "cli/tables.h"
#include "gtest/gtest.h"
#include "service/job_spec.h"

namespace synergy {
namespace {

std::vector<int> Indices(const std::string& text) {
  auto spec = service::ParseArraySpec(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.status();
  return spec.ok() ? spec->indices : std::vector<int>{};
}

TEST(ArraySpec, RangesListsStepsAndACap) {
  EXPECT_EQ(Indices("0-3"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(Indices("7"), (std::vector<int>{7}));
  EXPECT_EQ(Indices("5-6,1,3"), (std::vector<int>{1, 3, 5, 6}));
  EXPECT_EQ(Indices("0-9:4"), (std::vector<int>{0, 4, 8}));
  EXPECT_EQ(Indices("1,1,0-1"), (std::vector<int>{0, 1}));  // duplicates once
  auto capped = service::ParseArraySpec("0-99%10");
  ASSERT_TRUE(capped.ok());
  EXPECT_EQ(capped->indices.size(), 100u);
  EXPECT_EQ(capped->max_running, 10);
  EXPECT_EQ(service::ArrayCap("0-99%10"), 10);
  EXPECT_EQ(service::ArrayCap("0-99"), 0);
  EXPECT_EQ(service::JobsOfArray("0-99%10"), 100);
  EXPECT_EQ(service::JobsOfArray(""), 1);
}

TEST(ArraySpec, BadSpecsAreRefusedSayingWhichPart) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "no indices"},
      {"%4", "no indices"},
      {"3-1", "range '3-1' ends before it starts"},
      {"a-b", "'a-b' is not an index or a range of indices in 0..1000000"},
      {"-1", "'-1' is not an index"},
      {"0-9%0", "the cap after '%' is not a whole number from 1 to 10000"},
      {"0-9:0", "step in '0-9:0' is not a whole number from 1"},
      {"0-10000", "more than 10000 indices"},
      {"0-2000000", "is not an index or a range"},
      {"1,,2", "'' is not an index"},
  };
  for (const auto& [text, why] : cases) {
    auto spec = service::ParseArraySpec(text);
    ASSERT_FALSE(spec.ok()) << text;
    EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(spec.status().message().find(why), std::string::npos) << text << ": " << spec.status().message();
  }
}

TEST(ArraySpec, AJobSpecFileTakesAnArrayAndDependencies) {
  auto spec = service::ParseJobSpecYaml(
      "gpus: 1\ncommand: [\"true\"]\narray: 0-3%2\nafter_ok: [j-000004, \"j-000001[2]\"]\nafter_any: j-000009\n",
      "job.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->array(), "0-3%2");
  ASSERT_EQ(spec->after_ok_size(), 2);
  EXPECT_EQ(spec->after_ok(1), "j-000001_2");  // the bracket form, as sent
  EXPECT_EQ(spec->after_any(0), "j-000009");
  auto bad = service::ParseJobSpecYaml("gpus: 1\ncommand: [\"true\"]\narray: 9-1\n", "job.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "job.yaml: spec.array '9-1': range '9-1' ends before it starts");
  auto twice = service::ParseJobSpecYaml("gpus: 1\ncommand: [\"true\"]\nafter_ok: [j-1]\nafter_any: [j-1]\n", "j.yaml");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "j.yaml: spec.after_any[0]: j-1 is named twice");
}

TEST(ArrayNames, AnArraysJobGoesByItsIndexInEitherForm) {
  auto underscore = service::SplitArrayJobName("j-000100_3");
  ASSERT_TRUE(underscore.has_value());
  EXPECT_EQ(underscore->first, "j-000100");
  EXPECT_EQ(underscore->second, 3);
  EXPECT_EQ(service::SplitArrayJobName("j-000100[3]"), underscore);
  EXPECT_FALSE(service::SplitArrayJobName("j-000100").has_value());
  EXPECT_FALSE(service::SplitArrayJobName("j-000100[x]").has_value());
  EXPECT_FALSE(service::SplitArrayJobName("_3").has_value());
  EXPECT_EQ(service::CanonicalJobName("j-000100[3]"), "j-000100_3");
  EXPECT_EQ(service::CanonicalJobName("n1"), "n1");
  EXPECT_EQ(service::CanonicalJobName("a[b]"), "a[b]");
}

v1::Job ArrayJob(const std::string& id, const std::string& array, int index, v1::JobState state) {
  v1::Job job;
  job.set_id(id);
  job.set_array_id(array);
  job.set_array_index(index);
  job.set_state(state);
  job.mutable_spec()->set_gpus(1);
  job.mutable_spec()->set_name("sweep");
  job.set_reason("waiting for resources");
  return job;
}

TEST(ArrayRows, GetJobsFoldsAnArrayIntoOneRowUnlessWide) {
  std::vector<v1::Job> jobs = {ArrayJob("j-000001", "j-000001", 0, v1::JOB_STATE_RUNNING),
                               ArrayJob("j-000002", "j-000001", 1, v1::JOB_STATE_QUEUED),
                               ArrayJob("j-000003", "j-000001", 2, v1::JOB_STATE_QUEUED),
                               ArrayJob("j-000004", "", 0, v1::JOB_STATE_QUEUED)};
  const auto groups = cli::GroupByArray(jobs);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(cli::FoldedId(groups[0]), "j-000001[0-2]");
  EXPECT_EQ(cli::StateCounts(groups[0]), "2 queued, 1 running");
  const std::string narrow = cli::JobsTable(jobs, false, 0);
  EXPECT_NE(narrow.find("j-000001[0-2]  sweep  2 queued, 1 running  1     0/3 ended"), std::string::npos) << narrow;
  EXPECT_EQ(narrow.find("j-000001_1"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("j-000004"), std::string::npos);
  const std::string wide = cli::JobsTable(jobs, true, 0);
  EXPECT_NE(wide.find("j-000001_1"), std::string::npos) << wide;
  EXPECT_NE(wide.find("j-000001_2"), std::string::npos) << wide;
}

}  // namespace
}  // namespace synergy
