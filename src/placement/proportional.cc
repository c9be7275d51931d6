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
  void PlaceFrom(Candidates& candidates, PlacementState& state) const override {
    ForEachFitting(candidates, state, [&](const JobView& job) { TryPlaceShare(state, job.id, job.gpus); });
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeProportional() { return std::make_unique<Proportional>(); }

}  // namespace synergy::mechanisms
