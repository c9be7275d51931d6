#pragma once
// Reading a whole job list from synergyd a page at a time (ListJobs'
// page_token), stopping at a limit. Mechanism only: the call itself is the
// caller's, so the paging is tested without a server.
#include <cstddef>
#include <functional>
#include <vector>

#include "grpcpp/support/status.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

using ListCall = std::function<grpc::Status(const v1::ListJobsRequest&, v1::ListJobsResponse*)>;

// Calls `call` with `request` and then with each next_page_token, until a
// page says it is the last or `limit` jobs are in `out` (0 = no limit;
// page sizes are asked no larger than what the limit still needs). The
// first refusal is returned, with the pages before it in `out`. A page
// that repeats its own token (a broken server) ends the walk as an error.
grpc::Status ListAllJobs(const ListCall& call, v1::ListJobsRequest request, size_t limit,
                         std::vector<v1::Job>& out);

}  // namespace synergy::cli
