#include "mechanisms.h"

namespace synergy::mechanisms {
namespace {

// Each job gets its ideal demand or nothing this round: a job whose ideal
// demand does not fit in every dimension is skipped and its GPUs go to the
// jobs behind it.
class Greedy final : public Mechanism {
 public:
  std::string_view name() const override { return "greedy"; }
  bool uses_speedup() const override { return true; }
  void Place(std::span<const JobView* const> candidates,
             PlacementState& state) const override {
    for (const JobView* job : candidates) {
      // Free GPUs never come back within a round, and every job asks for
      // one or more: once none is free, no later candidate is placed.
      if (state.free_gpus() == 0) break;
      if (job->gpus > state.free_gpus()) continue;
      TryPlaceIdeal(state, *job);
    }
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeGreedy() { return std::make_unique<Greedy>(); }

}  // namespace synergy::mechanisms
