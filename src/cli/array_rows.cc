#include "cli/array_rows.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "service/job_arrays.h"
#include "service/names.h"

namespace synergy::cli {

std::vector<std::vector<const v1::Job*>> GroupByArray(const std::vector<v1::Job>& jobs) {
  std::vector<std::vector<const v1::Job*>> groups;
  std::map<std::string, size_t> group_of_array;
  for (const v1::Job& job : jobs) {
    if (job.array_id().empty()) {
      groups.push_back({&job});
      continue;
    }
    auto [it, added] = group_of_array.emplace(job.array_id(), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(&job);
  }
  return groups;
}

std::string ListedId(const v1::Job& job) {
  return job.array_id().empty() ? job.id() : service::ArrayJobName(job.array_id(), job.array_index());
}

std::string FoldedId(const std::vector<const v1::Job*>& group) {
  if (group.empty()) return "";
  std::vector<int> indices;
  for (const v1::Job* job : group) indices.push_back(job->array_index());
  return absl::StrCat(group.front()->array_id(), "[", service::FormatIdList(indices), "]");
}

std::string StateCounts(const std::vector<const v1::Job*>& group) {
  std::map<int, int> by_state;
  for (const v1::Job* job : group) ++by_state[job->state()];
  std::vector<std::string> parts;
  for (const auto& [state, count] : by_state) {
    parts.push_back(absl::StrCat(count, " ", service::JobStateName(static_cast<v1::JobState>(state))));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace synergy::cli
