#include "cli/job_pages.h"

#include <algorithm>

#include "service/request_limits.h"

namespace synergy::cli {

grpc::Status ListAllJobs(const ListCall& call, v1::ListJobsRequest request, size_t limit,
                         std::vector<v1::Job>& out) {
  for (;;) {
    if (limit > 0) {
      const size_t wanted = limit - std::min(limit, out.size());
      if (wanted == 0) return grpc::Status::OK;
      request.set_page_size(static_cast<int>(std::min<size_t>(wanted, service::kMaxListPageSize)));
    }
    v1::ListJobsResponse page;
    if (grpc::Status st = call(request, &page); !st.ok()) return st;
    for (v1::Job& job : *page.mutable_jobs()) {
      if (limit > 0 && out.size() == limit) break;
      out.push_back(std::move(job));
    }
    if (page.next_page_token().empty()) return grpc::Status::OK;
    if (page.next_page_token() <= request.page_token()) {
      return grpc::Status(grpc::StatusCode::INTERNAL,
                          "synergyd sent a page token that does not move forward (" + page.next_page_token() + ")");
    }
    request.set_page_token(page.next_page_token());
  }
}

}  // namespace synergy::cli
