#include "service/names.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace synergy::service {

std::string JobStateName(v1::JobState state) {
  std::string n = v1::JobState_Name(state);
  const std::string prefix = "JOB_STATE_";
  if (n.rfind(prefix, 0) == 0) n = n.substr(prefix.size());
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
  return n;
}

std::string FormatIdList(std::vector<int> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::string> ranges;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    ranges.push_back(j == i ? absl::StrCat(ids[i]) : absl::StrCat(ids[i], "-", ids[j]));
    i = j + 1;
  }
  return absl::StrJoin(ranges, ",");
}

}  // namespace synergy::service
