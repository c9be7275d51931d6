// DaemonState, how one job names another: an array's job by its index
// ("j-000100_3"), an array by its id, and a dependency's state, from the
// table or, for a job retired since, the store's history.
#include <algorithm>

#include "daemon/round/round_input.h"
#include "daemon/state/daemon_state.h"
#include "service/job_arrays.h"

namespace synergy::daemon {

std::optional<v1::Job> DaemonState::KnownJob(const std::string& id) const {
  if (auto it = jobs_.find(id); it != jobs_.end()) return it->second;
  auto retired = store_->LoadRetiredJob(id);
  if (!retired.ok()) return std::nullopt;  // not found, or the store cannot say: unknown
  return std::move(*retired);
}

std::optional<v1::JobState> DaemonState::KnownJobState(const std::string& id) const {
  if (auto it = jobs_.find(id); it != jobs_.end()) return it->second.state();
  std::optional<v1::Job> job = KnownJob(id);
  if (!job) return std::nullopt;
  return job->state();
}

std::vector<std::string> DaemonState::ArrayJobsOf(const std::string& id) const {
  std::optional<v1::Job> head = KnownJob(id);
  if (!head || head->array_id() != id) return {};
  auto spec = service::ParseArraySpec(head->spec().array());
  const JobId first = NumericJobId(id);
  if (!spec.ok() || first < 0) return {};
  std::vector<std::string> ids;
  ids.reserve(spec->indices.size());
  for (size_t k = 0; k < spec->indices.size(); ++k) ids.push_back(JobIdString(first + static_cast<JobId>(k)));
  return ids;
}

std::string DaemonState::ResolveJobName(const std::string& name) const {
  auto split = service::SplitArrayJobName(name);
  if (!split) return name;
  std::optional<v1::Job> head = KnownJob(split->first);
  if (!head || head->array_id() != split->first) return name;
  auto spec = service::ParseArraySpec(head->spec().array());
  if (!spec.ok()) return name;
  auto at = std::lower_bound(spec->indices.begin(), spec->indices.end(), split->second);
  if (at == spec->indices.end() || *at != split->second) return name;
  return JobIdString(NumericJobId(split->first) + (at - spec->indices.begin()));
}

DependencyCheck DaemonState::DependenciesOf(const v1::Job& job) const {
  return CheckDependencies(
      job.spec(), [this](const std::string& id) { return KnownJobState(id); },
      [this](const std::string& id) { return ArrayJobsOf(id); });
}

}  // namespace synergy::daemon
