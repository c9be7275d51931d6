#pragma once
// `synergyctl usage`: what each user or tenant used, as sreport and sshare
// show it: jobs, GPU-, CPU- and GB-hours held (Job.gpu_seconds and the
// like, summed over their leases), the mean wait (first launch -
// submission, of jobs that launched) and the mean JCT (end - submission,
// of jobs that ended). Over the jobs given (synergyctl asks synergyd for
// those submitted since --since, retired ones included). Pure.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

struct UsageRow {
  std::string key;  // the user or tenant; "-" for jobs of no tenant
  int jobs = 0;
  double gpu_hours = 0, cpu_hours = 0, gb_hours = 0;
  double wait_s_sum = 0;
  int launched = 0;  // jobs that launched: the wait's count
  double jct_s_sum = 0;
  int ended = 0;  // jobs that ended: the JCT's count
  double MeanWaitS() const { return launched > 0 ? wait_s_sum / launched : 0; }
  double MeanJctS() const { return ended > 0 ? jct_s_sum / ended : 0; }
};

// --by: "user" or "tenant"; the error names the flag and the value.
absl::Status CheckUsageKey(const std::string& by);

// One row per user (or tenant), by most GPU-hours first (ties by name),
// then a "total" row over all of them.
std::vector<UsageRow> SumUsage(const std::vector<v1::Job>& jobs, const std::string& by);

std::string UsageTable(const std::vector<UsageRow>& rows, const std::string& by);
// Header, then a row each; hours to 4 places, means in seconds ("" where
// no job launched or ended).
std::string UsageCsv(const std::vector<UsageRow>& rows, const std::string& by);
// A JSON array of objects with the CSV's columns as keys (null for no mean).
std::string UsageJson(const std::vector<UsageRow>& rows, const std::string& by);

}  // namespace synergy::cli
