// ClientGateway, listing jobs a page at a time: the table's jobs and, on
// request, the store's history, merged in id order (what keeps `get jobs`
// bounded however long synergyd runs).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/api/client_gateway.h"
#include "daemon/state/job_lifecycle.h"
#include "service/request_limits.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {
namespace {

// What a list shows of a job: its bulk (command, environment, events,
// profile points) stays with GetJob.
void ToSummary(v1::Job& job) {
  job.mutable_spec()->clear_command();
  job.mutable_spec()->clear_env();
  job.mutable_spec()->clear_profile_points();
  job.clear_events();
  job.mutable_measured_profile()->clear_points();
  if (job.measured_profile().ByteSizeLong() == 0) job.clear_measured_profile();
}

bool Selected(const v1::Job& job, const v1::ListJobsRequest& request) {
  if (request.states_size() > 0 &&
      std::find(request.states().begin(), request.states().end(), job.state()) == request.states().end()) {
    return false;
  }
  if (!request.owner().empty() && job.owner() != request.owner()) return false;
  if (!request.tenant().empty() && job.spec().tenant() != request.tenant()) return false;
  if (!request.array_id().empty() && job.array_id() != request.array_id()) return false;
  return job.submitted_unix_ms() >= request.submitted_since_unix_ms();
}

}  // namespace

absl::Status ClientGateway::ArrayPage(const v1::ListJobsRequest& request, size_t limit, std::vector<v1::Job>& live,
                                      std::vector<v1::Job>& retired) const {
  // Its jobs by id (as pages go: in the order of the ids' text), each
  // from the table or, asked for, the history.
  std::vector<std::string> ids = state_.ArrayJobsOf(request.array_id());
  std::sort(ids.begin(), ids.end());
  for (const std::string& id : ids) {
    if (id <= request.page_token()) continue;
    if (live.size() + retired.size() > limit) break;
    if (auto it = state_.jobs_.find(id); it != state_.jobs_.end()) {
      if (Selected(it->second, request)) live.push_back(it->second);
      continue;
    }
    if (!request.include_retired()) continue;
    absl::StatusOr<v1::Job> job = state_.store_->LoadRetiredJob(id);
    if (absl::IsNotFound(job.status())) continue;
    if (!job.ok()) return job.status();
    if (Selected(*job, request)) retired.push_back(std::move(*job));
  }
  return absl::OkStatus();
}

absl::StatusOr<DaemonState::JobPage> ClientGateway::ListJobs(const v1::ListJobsRequest& request) const {
  const size_t limit = request.page_size() > 0 ? request.page_size() : service::kDefaultListPageSize;
  // Up to limit + 1 candidates from each source, merged in id order: the
  // one past the limit says whether there is a next page.
  std::vector<v1::Job> live;
  std::vector<v1::Job> retired;
  if (!request.array_id().empty()) {
    if (auto st = ArrayPage(request, limit, live, retired); !st.ok()) return st;
  } else {
    const auto& all = state_.jobs_.all();
    for (auto it = all.upper_bound(request.page_token()); it != all.end() && live.size() <= limit; ++it) {
      if (Selected(it->second, request)) live.push_back(it->second);
    }
    if (request.include_retired()) {
      HistoryQuery query;
      query.after_id = request.page_token();
      query.since_ms = request.submitted_since_unix_ms();
      query.owner = request.owner();
      query.tenant = request.tenant();
      query.states.assign(request.states().begin(), request.states().end());
      query.limit = static_cast<int>(limit) + 1;
      auto loaded = state_.store_->LoadHistory(query);
      if (!loaded.ok()) return loaded.status();
      retired = std::move(*loaded);
    }
  }
  state_.board_.Overlay(live);
  SayWhyWaiting(live);
  JobPage page;
  size_t bytes = 0;
  auto l = live.begin();
  auto r = retired.begin();
  while (l != live.end() || r != retired.end()) {
    const bool take_live = r == retired.end() || (l != live.end() && l->id() < r->id());
    v1::Job& job = take_live ? *l++ : *r++;
    ToSummary(job);
    const size_t size = job.ByteSizeLong();
    if (page.jobs.size() == limit || (!page.jobs.empty() && bytes + size > service::kMaxListPageBytes)) {
      page.next_page_token = page.jobs.back().id();
      break;
    }
    bytes += size;
    page.jobs.push_back(std::move(job));
  }
  return page;
}

}  // namespace synergy::daemon
