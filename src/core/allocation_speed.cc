#include "synergy/allocation_speed.h"

#include <algorithm>
#include <cmath>

namespace synergy {

AllocationSpeed SpeedAtAllocation(const SensitivityProfile* profile, const Slices& slices, double placement_penalty,
                                  double planned) {
  AllocationSpeed out;
  out.placement = slices.size() > 1 ? placement_penalty : 1.0;
  out.speedup = planned;
  if (profile == nullptr || slices.empty()) return out;
  double slowest = HUGE_VAL;
  for (const Slice& s : slices) {
    const double gpus = std::max(1, s.resources.gpus);
    slowest = std::min(slowest, profile->SpeedupAt(s.resources.cpus / gpus, s.resources.mem_gb / gpus));
  }
  if (slowest > 0) out.speedup = slowest;
  return out;
}

}  // namespace synergy
