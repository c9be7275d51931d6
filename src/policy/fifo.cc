#include <algorithm>

#include "policies.h"

namespace synergy::policies {
namespace {

class Fifo final : public Policy {
 public:
  std::string_view name() const override { return "fifo"; }
  Selection selection() const override { return Selection::kWalkQueue; }
  void Order(std::vector<const JobView*>& queue, const PolicyContext&) const override {
    SortStable(queue, [](const JobView* a, const JobView* b) {
      return a->arrival_s < b->arrival_s;
    });
  }
};

}  // namespace

std::unique_ptr<Policy> MakeFifo() { return std::make_unique<Fifo>(); }

}  // namespace synergy::policies
