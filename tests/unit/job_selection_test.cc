#include "cli/job_selection.h"

#include "gtest/gtest.h"

namespace synergy::cli {
namespace {

v1::Job MakeJob(const std::string& id, const std::string& owner, const std::string& tenant, v1::JobState state,
                int gpus, int64_t submitted, int priority) {
  v1::Job j;
  j.set_id(id);
  j.set_owner(owner);
  j.mutable_spec()->set_tenant(tenant);
  j.mutable_spec()->set_gpus(gpus);
  j.mutable_spec()->set_priority(priority);
  j.set_state(state);
  j.set_submitted_unix_ms(submitted);
  return j;
}

std::vector<std::string> Ids(const std::vector<v1::Job>& jobs) {
  std::vector<std::string> out;
  for (const v1::Job& j : jobs) out.push_back(j.id());
  return out;
}

const std::vector<v1::Job> kJobs = {
    MakeJob("j-000003", "bob", "nlp", v1::JOB_STATE_RUNNING, 4, 300, 0),
    MakeJob("j-000001", "alice", "vision", v1::JOB_STATE_QUEUED, 1, 100, 5),
    MakeJob("j-000002", "alice", "vision", v1::JOB_STATE_RUNNING, 2, 50, 0),
};

TEST(JobSelection, FiltersByStateUserAndTenantInIdOrder) {
  JobSelection s;
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000001", "j-000002", "j-000003"}));
  s.states = *ParseStates("running");
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000002", "j-000003"}));
  s.user = "alice";
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000002"}));
  s = JobSelection{};
  s.tenant = "nlp";
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000003"}));
}

TEST(JobSelection, SortsByTheNamedKeyWithTiesInIdOrder) {
  JobSelection s;
  s.sort_by = "age";
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000002", "j-000001", "j-000003"}));
  s.sort_by = "gpus";
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000001", "j-000002", "j-000003"}));
  s.sort_by = "priority";  // highest first, then id order
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000001", "j-000002", "j-000003"}));
  s.sort_by = "user";
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000001", "j-000002", "j-000003"}));
  s.sort_by = "state";  // queued < running
  EXPECT_EQ(Ids(SelectJobs(kJobs, s)), (std::vector<std::string>{"j-000001", "j-000002", "j-000003"}));
}

TEST(JobSelection, BadStatesAndKeysAreRefusedWithTheChoices) {
  EXPECT_EQ(ParseStates("running,queued")->size(), 2u);
  const absl::Status bad = ParseStates("running,sleeping").status();
  EXPECT_NE(bad.message().find("--state: 'sleeping' is not a job state ("), std::string::npos) << bad;
  EXPECT_NE(bad.message().find("succeeded"), std::string::npos) << bad;
  EXPECT_FALSE(ParseStates("").ok());
  EXPECT_FALSE(ParseStates("unspecified").ok());
  EXPECT_TRUE(CheckSortKey("age").ok());
  EXPECT_NE(CheckSortKey("size").message().find("--sort-by: 'size' is not one of id, name"), std::string::npos);
}

}  // namespace
}  // namespace synergy::cli
