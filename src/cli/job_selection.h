#pragma once
// Which jobs `synergyctl get jobs` shows, in which order: by state (also
// asked of synergyd, which filters ListJobs), owner and tenant, sorted by a
// named column. Pure: parsing the flags' values and selecting from a list.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

struct JobSelection {
  std::vector<v1::JobState> states;  // empty: every state
  std::string user;                  // "": every owner
  std::string tenant;                // "": every tenant
  std::string sort_by = "id";        // one of kSortKeys
};

// The --sort-by keys: id, name, state, user, tenant, gpus, age (oldest
// first), priority (highest first). Ties keep id order.
extern const std::vector<std::string> kSortKeys;

// "running,queued" -> their states; names as `get jobs` shows them. Errors
// name the flag and the value, with the states there are.
absl::StatusOr<std::vector<v1::JobState>> ParseStates(const std::string& csv);
absl::Status CheckSortKey(const std::string& key);

std::vector<v1::Job> SelectJobs(std::vector<v1::Job> jobs, const JobSelection& selection);

}  // namespace synergy::cli
