#include "policies.h"

namespace synergy::policies {
namespace {

// Finish-time fairness: rho = (time in the system + remaining time) / the
// job's run time alone at proportional share. Themis serves the largest rho
// (the worst-treated job) first. The reference sorts ascending, serving the
// best-treated first; reference-compatible mode keeps that (see
// docs/simulator.md).
class Ftf final : public Policy {
 public:
  std::string_view name() const override { return "ftf"; }
  Selection selection() const override { return Selection::kWalkQueue; }
  OrderKey Key(const JobView& job, const PolicyContext& context) const override {
    const double sign = context.reference_compatible ? 1.0 : -1.0;
    const double ideal = job.iteration_time_s * job.total_iterations;
    const double rho = (context.now_s - job.arrival_s + RemainingTime(job, context)) / ideal;
    return {-static_cast<double>(job.priority), sign * rho, job.arrival_s};
  }
  bool key_moves_with_time() const override { return true; }
};

}  // namespace

std::unique_ptr<Policy> MakeFtf() { return std::make_unique<Ftf>(); }

}  // namespace synergy::policies
