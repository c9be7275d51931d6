// synergyctl without traps: "did you mean" for a mistyped command or flag,
// and one verb on several jobs (a line per job, an honest exit status, a
// selector that needs --yes beyond one job).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "cli/job_actions.h"
#include "cli/suggest.h"

namespace synergy::cli {
namespace {

using ::testing::HasSubstr;

TEST(DidYouMean, ATypoOfAKnownWordIsSuggestedAndAStrangerIsNot) {
  const std::vector<std::string> verbs = {"submit", "get", "history", "cancel", "hold", "release"};
  EXPECT_EQ(Nearest("cancle", verbs), "cancel");  // a swap is one edit
  EXPECT_EQ(Nearest("submitt", verbs), "submit");
  EXPECT_EQ(Nearest("histroy", verbs), "history");
  EXPECT_EQ(Nearest("delete", verbs), "");  // release is 3 edits away
  EXPECT_EQ(Nearest("gt", verbs), "");      // one edit, but half of a two-letter word
  EXPECT_EQ(Nearest("", verbs), "");
  EXPECT_EQ(DidYouMean("--stat", {"--state", "--user"}), " (did you mean '--state'?)");
  EXPECT_EQ(DidYouMean("--frobnicate", {"--state", "--user"}), "");
}

TEST(ActOnJobs, EachJobGetsItsLineAndAnyRefusalMakesTheExitNonZero) {
  std::vector<std::string> asked;
  auto act = [&](const std::string& id, v1::Job* after) {
    asked.push_back(id);
    if (id == "j-000002") return grpc::Status(grpc::StatusCode::NOT_FOUND, "job j-000002: no such job");
    after->set_id(id);
    after->set_state(v1::JOB_STATE_CANCELLED);
    return grpc::Status::OK;
  };
  auto done = [](const v1::Job&) { return std::string("cancelled"); };
  std::ostringstream out, err;
  EXPECT_EQ(ActOnJobs("cancel", {"j-000001", "j-000002", "j-000003"}, act, done, out, err), 1);
  EXPECT_EQ(asked, (std::vector<std::string>{"j-000001", "j-000002", "j-000003"}));  // goes on past a refusal
  EXPECT_EQ(out.str(), "j-000001 cancelled\nj-000003 cancelled\n");
  EXPECT_THAT(err.str(), HasSubstr("synergyctl: j-000002: job j-000002: no such job\n"));
  EXPECT_THAT(err.str(), HasSubstr("cancel: 2 of 3\n"));
  std::ostringstream out1, err1;
  EXPECT_EQ(ActOnJobs("cancel", {"j-000001"}, act, done, out1, err1), 0);
  EXPECT_EQ(err1.str(), "");  // one job: no tally
  auto bad_input = [](const std::string&, v1::Job*) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "job_id: 'x y': not a job id");
  };
  std::ostringstream out2, err2;
  EXPECT_EQ(ActOnJobs("hold", {"x y"}, bad_input, done, out2, err2), 2);
}

TEST(ConfirmSelection, MoreThanOneSelectedJobNeedsYes) {
  EXPECT_EQ(ConfirmSelection("cancel", {"j-000001"}, false), "");
  EXPECT_EQ(ConfirmSelection("cancel", {"j-000001", "j-000002"}, true), "");
  EXPECT_EQ(ConfirmSelection("cancel", {"j-000001", "j-000002"}, false),
            "2 jobs match (j-000001 j-000002): add --yes to cancel them all");
  std::vector<std::string> many;
  for (int i = 1; i <= 12; ++i) many.push_back("j-" + std::to_string(i));
  EXPECT_THAT(ConfirmSelection("hold", many, false),
              HasSubstr("12 jobs match (j-1 j-2 j-3 j-4 j-5 j-6 j-7 j-8 j-9 j-10 ...)"));
}

}  // namespace
}  // namespace synergy::cli
