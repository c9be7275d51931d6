#include <algorithm>
#include <tuple>

#include "policies.h"

namespace synergy::policies {
namespace {

class Srtf final : public Policy {
 public:
  std::string_view name() const override { return "srtf"; }
  Selection selection() const override { return Selection::kWalkQueue; }
  void Order(std::vector<const JobView*>& queue,
             const PolicyContext& context) const override {
    auto key = [&](const JobView* j) {
      return std::make_tuple(-j->priority, RemainingTime(*j, context), j->arrival_s);
    };
    SortStable(queue,
                     [&](const JobView* a, const JobView* b) { return key(a) < key(b); });
  }
};

}  // namespace

std::unique_ptr<Policy> MakeSrtf() { return std::make_unique<Srtf>(); }

}  // namespace synergy::policies
