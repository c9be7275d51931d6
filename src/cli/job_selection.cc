#include "cli/job_selection.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "service/escape.h"
#include "service/names.h"

namespace synergy::cli {

const std::vector<std::string> kSortKeys = {"id", "name", "state", "user", "tenant", "gpus", "age", "priority"};

absl::StatusOr<std::vector<v1::JobState>> ParseStates(const std::string& csv) {
  std::vector<std::string> names;
  for (int s = v1::JobState_MIN; s <= v1::JobState_MAX; ++s) {
    if (v1::JobState_IsValid(s) && s != v1::JOB_STATE_UNSPECIFIED) {
      names.push_back(service::JobStateName(static_cast<v1::JobState>(s)));
    }
  }
  std::vector<v1::JobState> out;
  for (absl::string_view part : absl::StrSplit(csv, ',')) {
    bool found = false;
    for (int s = v1::JobState_MIN; s <= v1::JobState_MAX && !found; ++s) {
      if (!v1::JobState_IsValid(s) || s == v1::JOB_STATE_UNSPECIFIED) continue;
      if (service::JobStateName(static_cast<v1::JobState>(s)) == part) {
        out.push_back(static_cast<v1::JobState>(s));
        found = true;
      }
    }
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat("--state: ", service::QuoteForMessage(std::string(part)),
                                                     " is not a job state (", absl::StrJoin(names, ", "), ")"));
    }
  }
  return out;
}

absl::Status CheckSortKey(const std::string& key) {
  if (std::find(kSortKeys.begin(), kSortKeys.end(), key) != kSortKeys.end()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("--sort-by: ", service::QuoteForMessage(key),
                                                 " is not one of ", absl::StrJoin(kSortKeys, ", ")));
}

std::vector<v1::Job> SelectJobs(std::vector<v1::Job> jobs, const JobSelection& sel) {
  std::erase_if(jobs, [&](const v1::Job& j) {
    if (!sel.states.empty() && std::find(sel.states.begin(), sel.states.end(), j.state()) == sel.states.end()) {
      return true;
    }
    if (!sel.user.empty() && j.owner() != sel.user) return true;
    return !sel.tenant.empty() && j.spec().tenant() != sel.tenant;
  });
  // Ids are zero-padded (j-000012): their text order is their number order.
  std::sort(jobs.begin(), jobs.end(), [](const v1::Job& a, const v1::Job& b) { return a.id() < b.id(); });
  const std::string& k = sel.sort_by;
  std::stable_sort(jobs.begin(), jobs.end(), [&](const v1::Job& a, const v1::Job& b) {
    if (k == "name") return a.spec().name() < b.spec().name();
    if (k == "state") return service::JobStateName(a.state()) < service::JobStateName(b.state());
    if (k == "user") return a.owner() < b.owner();
    if (k == "tenant") return a.spec().tenant() < b.spec().tenant();
    if (k == "gpus") return a.spec().gpus() < b.spec().gpus();
    if (k == "age") return a.submitted_unix_ms() < b.submitted_unix_ms();
    if (k == "priority") return a.spec().priority() > b.spec().priority();
    return false;  // id: already in order
  });
  return jobs;
}

}  // namespace synergy::cli
