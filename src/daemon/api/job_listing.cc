// Listing jobs a page at a time, and retiring ended jobs into the store's
// history table: what keeps `get jobs` and synergyd's memory bounded
// however long it runs.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "daemon/state/daemon_state.h"
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
  return job.submitted_unix_ms() >= request.submitted_since_unix_ms();
}

}  // namespace

absl::StatusOr<DaemonState::JobPage> DaemonState::ListJobs(const v1::ListJobsRequest& request) const {
  const size_t limit = request.page_size() > 0 ? request.page_size() : service::kDefaultListPageSize;
  // Up to limit + 1 candidates from each source, merged in id order: the
  // one past the limit says whether there is a next page.
  std::vector<v1::Job> live;
  for (auto it = jobs_.all().upper_bound(request.page_token()); it != jobs_.all().end() && live.size() <= limit; ++it) {
    if (Selected(it->second, request)) live.push_back(it->second);
  }
  board_.Overlay(live);
  std::vector<v1::Job> retired;
  if (request.include_retired()) {
    HistoryQuery query;
    query.after_id = request.page_token();
    query.since_ms = request.submitted_since_unix_ms();
    query.owner = request.owner();
    query.tenant = request.tenant();
    query.states.assign(request.states().begin(), request.states().end());
    query.limit = static_cast<int>(limit) + 1;
    auto loaded = store_->LoadHistory(query);
    if (!loaded.ok()) return loaded.status();
    retired = std::move(*loaded);
  }
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

void DaemonState::RetireEndedJobs(Batch& batch, int64_t now_ms) {
  if (config_.retain_ended_jobs_s < 0 || now_ms < next_retirement_ms_) return;
  const int64_t retain_ms = config_.retain_ended_jobs_s * 1000;
  // Looked for at most every 10 s (a walk over every job), more often only
  // where retention is that short.
  next_retirement_ms_ = now_ms + std::clamp<int64_t>(retain_ms / 2, 100, 10000);
  std::vector<std::string> due;
  for (const auto& [id, job] : jobs_.all()) {
    if (!Terminal(job) || job.finished_unix_ms() <= 0 || now_ms - job.finished_unix_ms() < retain_ms) continue;
    // Holding nothing and stored as it is: its last record is what the
    // history keeps.
    if (job.has_lease() || leases_.AnyOf(id) || jobs_.dirty(id)) continue;
    due.push_back(id);
    if (due.size() == static_cast<size_t>(kMaxRetiredPerTick)) break;
  }
  for (const std::string& id : due) {
    batch.retired.push_back(jobs_.at(id));
    jobs_.Retire(id);
  }
  if (!due.empty()) {
    spdlog::info("retired {} ended job(s) into the history table ({} to {}): ended over {} s ago", due.size(),
                 due.front(), due.back(), config_.retain_ended_jobs_s);
  }
}

}  // namespace synergy::daemon
