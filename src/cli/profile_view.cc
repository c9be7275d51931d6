#include "cli/profile_view.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "synergy/measured_model.h"

namespace synergy::cli {
namespace {

// The measured points, else the spec's, as the core reads them.
std::vector<MeasuredPoint> PointsOf(const v1::Job& job) {
  const auto& given =
      job.measured_profile().points_size() > 0 ? job.measured_profile().points() : job.spec().profile_points();
  std::vector<MeasuredPoint> points;
  for (const v1::ProfilePoint& p : given) points.push_back({p.cpus(), p.mem_gb(), p.throughput()});
  std::stable_sort(points.begin(), points.end(), [](const MeasuredPoint& a, const MeasuredPoint& b) {
    return a.cpus != b.cpus ? a.cpus < b.cpus : a.mem_gb < b.mem_gb;
  });
  return points;
}

}  // namespace

std::string ProfileTable(const v1::Job& job) {
  const std::vector<MeasuredPoint> points = PointsOf(job);
  if (points.empty()) return "";
  const std::optional<MeasuredPoint> knee = MeasuredKnee(points);
  std::string out = "  CPUS  MEM GB  IT/S\n";
  for (const MeasuredPoint& p : points) {
    const bool is_knee = knee && p.cpus == knee->cpus && p.mem_gb == knee->mem_gb;
    absl::StrAppendFormat(&out, "  %-4g  %-6.1f  %.2f%s\n", p.cpus, p.mem_gb, p.throughput,
                          is_knee ? "  <- knee: what TUNE asks for (fewest CPUs within 10% of the best)" : "");
  }
  return out;
}

std::string AllocationLine(const v1::Job& job) {
  if (!job.has_lease()) return "";
  int cpus = 0;
  double mem = 0;
  for (const v1::LeaseSlice& s : job.lease().slices()) {
    cpus += s.cpu_ids_size();
    mem += s.mem_gb();
  }
  std::string line = absl::StrFormat("%d CPUs, %.1f GB (predicted speedup %.2f over the proportional share", cpus, mem,
                                     job.lease().speedup());
  const std::vector<MeasuredPoint> points = PointsOf(job);
  if (const std::optional<MeasuredPoint> knee = MeasuredKnee(points)) {
    absl::StrAppendFormat(&line, "; the knee: %g CPUs, %.1f GB", knee->cpus, knee->mem_gb);
  }
  return line + ")";
}

}  // namespace synergy::cli
