// DaemonState, how one job names another: an array's job by its index
// ("j-000100_3"), an array by its id, and a dependency's state, from the
// table or, for a job retired since, the store's history.
#include <algorithm>

#include "daemon/round/round_input.h"
#include "daemon/state/daemon_state.h"
#include "service/job_arrays.h"

namespace synergy::daemon {

absl::StatusOr<v1::Job> DaemonState::KnownJob(const std::string& id) const {
  if (auto it = jobs_.find(id); it != jobs_.end()) return it->second;
  return store_->LoadRetiredJob(id);
}

std::optional<v1::JobState> DaemonState::KnownJobState(const std::string& name, DependencyLookups* cache) const {
  const std::string id = ResolveJobName(name);
  if (auto it = jobs_.find(id); it != jobs_.end()) return it->second.state();
  if (cache != nullptr) {
    if (auto hit = cache->states.find(id); hit != cache->states.end()) return hit->second;
  }
  absl::StatusOr<v1::Job> job = KnownJob(id);
  std::optional<v1::JobState> state;
  if (job.ok()) {
    state = job->state();
  } else if (!absl::IsNotFound(job.status())) {
    // The store cannot say now: not an ending, so whoever waits on it waits on.
    state = v1::JOB_STATE_UNSPECIFIED;
  }
  if (cache != nullptr) cache->states[id] = state;
  return state;
}

std::vector<std::string> DaemonState::ArrayJobsOf(const std::string& id, DependencyLookups* cache) const {
  if (cache != nullptr) {
    if (auto hit = cache->arrays.find(id); hit != cache->arrays.end()) return hit->second;
  }
  std::vector<std::string> ids;
  absl::StatusOr<v1::Job> head = KnownJob(id);
  auto spec = head.ok() && head->array_id() == id ? service::ParseArraySpec(head->spec().array())
                                                   : absl::StatusOr<service::ArraySpec>(absl::NotFoundError(""));
  const JobId first = NumericJobId(id);
  if (spec.ok() && first >= 0) {
    ids.reserve(spec->indices.size());
    for (size_t k = 0; k < spec->indices.size(); ++k) ids.push_back(JobIdString(first + static_cast<JobId>(k)));
  }
  if (cache != nullptr) cache->arrays[id] = ids;
  return ids;
}

std::string DaemonState::ResolveJobName(const std::string& name) const {
  auto split = service::SplitArrayJobName(name);
  if (!split) return name;
  absl::StatusOr<v1::Job> head = KnownJob(split->first);
  if (!head.ok() || head->array_id() != split->first) return name;
  auto spec = service::ParseArraySpec(head->spec().array());
  if (!spec.ok()) return name;
  auto at = std::lower_bound(spec->indices.begin(), spec->indices.end(), split->second);
  if (at == spec->indices.end() || *at != split->second) return name;
  return JobIdString(NumericJobId(split->first) + (at - spec->indices.begin()));
}

DependencyCheck DaemonState::DependenciesOf(const v1::Job& job, DependencyLookups* cache) const {
  return CheckDependencies(
      job.spec(), [this, cache](const std::string& id) { return KnownJobState(id, cache); },
      [this, cache](const std::string& id) { return ArrayJobsOf(id, cache); });
}

}  // namespace synergy::daemon
