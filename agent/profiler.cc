#include "synergy/agent_profiler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace synergy::agent {

CpuProfile ProfileCpus(int max_cpus, const std::function<double(int, int)>& measure,
                       const ProfilerOptions& options) {
  CpuProfile out;
  std::map<int, size_t> index;  // cpus -> its place in out.measured
  std::set<int> this_pass;
  auto at = [&](int cpus) {
    auto it = index.find(cpus);
    if (it != index.end() && this_pass.count(cpus)) return out.measured[it->second].throughput;
    const double t = measure(cpus, options.iterations_per_point);
    this_pass.insert(cpus);
    if (t > 0) out.seconds += options.iterations_per_point / t;
    if (it == index.end()) {
      index[cpus] = out.measured.size();
      out.measured.push_back(CpuPoint{cpus, t});
      return t;
    }
    double& best = out.measured[it->second].throughput;
    best = std::max(best, t);
    return best;
  };
  // The predicate "the most CPUs improve on c by less than the threshold"
  // holds from the knee up (throughput does not fall with more CPUs), so a
  // binary search finds the smallest c where it holds. Comparing with the
  // most CPUs, not with the neighbour above, keeps the knee within the
  // threshold of the best throughput however many times the search descends.
  const int top = std::max(1, max_cpus);
  for (int pass = 0; pass < std::max(1, options.passes); ++pass) {
    this_pass.clear();
    const double best = at(top);
    auto good = [&](int c) { return best < at(c) * (1.0 + options.threshold); };
    int lo = 1, hi = top;  // hi is good
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (good(mid)) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    out.knee = hi;
  }
  return out;
}

double CpuThroughputAt(const CpuProfile& profile, double cpus) {
  std::vector<CpuPoint> pts = profile.measured;
  std::sort(pts.begin(), pts.end(), [](const CpuPoint& a, const CpuPoint& b) { return a.cpus < b.cpus; });
  if (pts.empty()) return 0;
  if (cpus <= pts.front().cpus) return pts.front().throughput * cpus / pts.front().cpus;
  for (size_t i = 1; i < pts.size(); ++i) {
    if (cpus <= pts[i].cpus) {
      const double f = (cpus - pts[i - 1].cpus) / (pts[i].cpus - pts[i - 1].cpus);
      return pts[i - 1].throughput + f * (pts[i].throughput - pts[i - 1].throughput);
    }
  }
  return pts.back().throughput;
}

double IoThroughputAt(const MemoryModel& m, double mem_gb) {
  if (m.dataset_gb <= 0 || m.mb_per_iteration <= 0) return std::numeric_limits<double>::infinity();
  const double hit = std::clamp((mem_gb - m.baseline_gb) / m.dataset_gb, 0.0, 1.0);
  const double miss = 1.0 - hit;
  if (miss <= 0) return std::numeric_limits<double>::infinity();
  return m.storage_mbps / (miss * m.mb_per_iteration);
}

std::vector<MatrixPoint> Matrix(const CpuProfile& cpu, const MemoryModel& memory,
                                const std::vector<double>& cpu_points, const std::vector<double>& mem_points) {
  std::vector<MatrixPoint> out;
  for (double c : cpu_points) {
    for (double m : mem_points) {
      out.push_back(MatrixPoint{c, m, std::min(CpuThroughputAt(cpu, c), IoThroughputAt(memory, m))});
    }
  }
  return out;
}

}  // namespace synergy::agent
