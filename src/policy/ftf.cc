#include <algorithm>
#include <tuple>

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
  void Order(std::vector<const JobView*>& queue,
             const PolicyContext& context) const override {
    const double sign = context.reference_compatible ? 1.0 : -1.0;
    auto key = [&](const JobView* j) {
      const double ideal = j->iteration_time_s * j->total_iterations;
      const double rho = (context.now_s - j->arrival_s + RemainingTime(*j, context)) / ideal;
      return std::make_tuple(-j->priority, sign * rho, j->arrival_s);
    };
    SortStable(queue,
                     [&](const JobView* a, const JobView* b) { return key(a) < key(b); });
  }
};

}  // namespace

std::unique_ptr<Policy> MakeFtf() { return std::make_unique<Ftf>(); }

}  // namespace synergy::policies
