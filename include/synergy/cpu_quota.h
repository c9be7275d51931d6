#pragma once
// CPU-time limits as the kernel's CFS bandwidth control takes them:
// synergy-node writes a job's limit on a node with CPU slots, and the
// agent's profiler lowers its own for each profile point.
#include <algorithm>
#include <cstdint>

namespace synergy {

// Microseconds of CPU time per `period_us` for `cores` cores (rounded); the
// kernel refuses quotas under 1 ms.
inline int64_t CpuQuotaUs(double cores, int64_t period_us) {
  return std::max<int64_t>(1000, static_cast<int64_t>(cores * period_us + 0.5));
}

}  // namespace synergy
