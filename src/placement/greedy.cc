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
  void PlaceFrom(Candidates& candidates, PlacementState& state) const override {
    ForEachFitting(candidates, state, [&](const JobView& job) { TryPlaceIdeal(state, job); });
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeGreedy() { return std::make_unique<Greedy>(); }

}  // namespace synergy::mechanisms
