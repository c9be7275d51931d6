// synergyctl's walk over ListJobs pages, against a fake server that pages a
// fixed list: every job once, in order, stopping at --limit.
#include "cli/job_pages.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace synergy::cli {
namespace {

// Pages `ids` as synergyd does: after the token, at most page_size (0 =
// 500); records each request.
struct FakePagingServer {
  std::vector<std::string> ids;
  std::vector<v1::ListJobsRequest> asked;
  grpc::Status operator()(const v1::ListJobsRequest& req, v1::ListJobsResponse* page) {
    asked.push_back(req);
    const size_t size = req.page_size() > 0 ? req.page_size() : 500;
    for (const std::string& id : ids) {
      if (id <= req.page_token()) continue;
      if (static_cast<size_t>(page->jobs_size()) == size) {
        page->set_next_page_token(page->jobs(page->jobs_size() - 1).id());
        break;
      }
      page->add_jobs()->set_id(id);
    }
    return grpc::Status::OK;
  }
};

std::vector<std::string> IdsOf(const std::vector<v1::Job>& jobs) {
  std::vector<std::string> ids;
  for (const v1::Job& j : jobs) ids.push_back(j.id());
  return ids;
}

std::vector<std::string> NumberedIds(int n) {
  std::vector<std::string> ids;
  for (int i = 1; i <= n; ++i) ids.push_back("j-" + std::string(6 - std::to_string(i).size(), '0') + std::to_string(i));
  return ids;
}

TEST(ListAllJobs, FollowsEveryPageToTheLast) {
  FakePagingServer server{NumberedIds(1234)};
  std::vector<v1::Job> out;
  ASSERT_TRUE(ListAllJobs(std::ref(server), v1::ListJobsRequest{}, 0, out).ok());
  EXPECT_EQ(IdsOf(out), server.ids);
  ASSERT_EQ(server.asked.size(), 3u);  // 500 + 500 + 234
  EXPECT_EQ(server.asked[1].page_token(), "j-000500");
  EXPECT_EQ(server.asked[2].page_token(), "j-001000");
}

TEST(ListAllJobs, StopsAtTheLimitAndAsksOnlyForWhatItNeeds) {
  FakePagingServer server{NumberedIds(50)};
  std::vector<v1::Job> out;
  ASSERT_TRUE(ListAllJobs(std::ref(server), v1::ListJobsRequest{}, 7, out).ok());
  EXPECT_EQ(IdsOf(out), NumberedIds(7));
  ASSERT_EQ(server.asked.size(), 1u);
  EXPECT_EQ(server.asked[0].page_size(), 7);
}

TEST(ListAllJobs, KeepsTheFiltersOnEveryPage) {
  FakePagingServer server{NumberedIds(3)};
  v1::ListJobsRequest req;
  req.set_owner("bob");
  req.set_page_size(1);
  std::vector<v1::Job> out;
  ASSERT_TRUE(ListAllJobs(std::ref(server), req, 0, out).ok());
  EXPECT_EQ(out.size(), 3u);
  for (const v1::ListJobsRequest& asked : server.asked) EXPECT_EQ(asked.owner(), "bob");
}

TEST(ListAllJobs, AReusedTokenEndsTheWalkAsAnError) {
  int calls = 0;
  auto stuck = [&](const v1::ListJobsRequest&, v1::ListJobsResponse* page) {
    ++calls;
    page->add_jobs()->set_id("j-000001");
    page->set_next_page_token("j-000001");
    return grpc::Status::OK;
  };
  std::vector<v1::Job> out;
  grpc::Status st = ListAllJobs(stuck, v1::ListJobsRequest{}, 0, out);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_LE(calls, 2);
}

TEST(ListAllJobs, ARefusalIsReturnedWithThePagesBeforeIt) {
  int calls = 0;
  auto refusing = [&](const v1::ListJobsRequest&, v1::ListJobsResponse* page) {
    if (++calls == 2) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "gone");
    page->add_jobs()->set_id("j-000001");
    page->set_next_page_token("j-000001");
    return grpc::Status::OK;
  };
  std::vector<v1::Job> out;
  EXPECT_EQ(ListAllJobs(refusing, v1::ListJobsRequest{}, 0, out).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(out.size(), 1u);
}

}  // namespace
}  // namespace synergy::cli
