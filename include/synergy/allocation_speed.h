#pragma once
// How fast a job runs at an allocation, relative to its proportional
// share: the one rule that synergy-sim books progress by and the deployment
// tests' emulated jobs run at (tests/deployment/emulated_job.cc), so that
// the simulator and a real run differ only where the world does.
//   - each slice runs at its profile's speedup at the slice's CPUs and
//     memory per GPU (SensitivityProfile::SpeedupAt), and the slowest slice
//     sets the pace: data-parallel ranks wait for each other at every step;
//   - a job spread over several servers also runs at its placement
//     penalty (the model's factor, below 1).
// Pure.
#include "synergy/model_zoo.h"
#include "synergy/plan.h"

namespace synergy {

struct AllocationSpeed {
  double speedup = 1;    // of the slowest slice (or the plan's, without a profile)
  double placement = 1;  // the placement penalty where the slices span servers, else 1
  // Throughput relative to the proportional share on one server.
  double rate() const { return speedup * placement; }
};

// The speed of a job with `profile` (nullptr: known only by the plan, which
// credited it `planned`) at `slices` (one per server, as an Assignment's),
// its model's `placement_penalty` applying when they span several servers.
// A profile that reads 0 at a slice (below its grid) gives `planned` too.
AllocationSpeed SpeedAtAllocation(const SensitivityProfile* profile, const Slices& slices, double placement_penalty,
                                  double planned);

}  // namespace synergy
