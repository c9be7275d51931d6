#include "service/names.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

namespace {

std::string IdListOrDash(const google::protobuf::RepeatedField<int32_t>& ids) {
  const std::string list = FormatIdList({ids.begin(), ids.end()});
  return list.empty() ? "-" : list;
}

}  // namespace

std::string DescribeLease(const v1::Lease& lease) {
  std::vector<std::string> parts;
  for (const v1::LeaseSlice& s : lease.slices()) {
    parts.push_back(absl::StrFormat("%s gpus %s cpus %s (%d) mem %.1f GB", s.node(), IdListOrDash(s.gpu_ids()),
                                    IdListOrDash(s.cpu_ids()), s.cpu_ids_size(), s.mem_gb()));
  }
  // A weight other than 1 (a lease on a slower GPU type) is said: it is why
  // the job's attained service grows slower than its wall time.
  const double weight = lease.service_weight();
  const std::string weighed =
      weight > 0 && weight != 1 ? absl::StrFormat(", service weight %.2f", weight) : std::string();
  return absl::StrCat(absl::StrJoin(parts, "; "), absl::StrFormat(" (speedup %.2f%s)", lease.speedup(), weighed));
}

}  // namespace synergy::service
