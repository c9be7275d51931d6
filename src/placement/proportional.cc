#include "mechanisms.h"

namespace synergy::mechanisms {
namespace {

// The baseline every GPU scheduler ships: CPU, memory and storage in
// proportion to the GPUs asked for, whatever the job would do with them
// (each server's own share per GPU, Cluster::ShareRule).
class Proportional final : public Mechanism {
 public:
  std::string_view name() const override { return "proportional"; }
  bool uses_speedup() const override { return false; }
  void Place(std::span<const JobView* const> candidates,
             PlacementState& state) const override {
    for (const JobView* job : candidates) {
      // Free GPUs never come back within a round, and every job asks for
      // one or more: once none is free, no later candidate is placed.
      if (state.free_gpus() == 0) break;
      if (job->gpus > state.free_gpus()) continue;
      TryPlaceShare(state, job->id, job->gpus);
    }
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeProportional() { return std::make_unique<Proportional>(); }

}  // namespace synergy::mechanisms
