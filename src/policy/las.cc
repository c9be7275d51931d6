#include <algorithm>
#include <tuple>

#include "policies.h"

namespace synergy::policies {
namespace {

// Least attained service, counted in GPU-seconds (time held x GPUs), so a
// wide job is not favoured over a narrow one that ran as long.
class Las final : public Policy {
 public:
  std::string_view name() const override { return "las"; }
  Selection selection() const override { return Selection::kCountFitFirst; }
  void Order(std::vector<const JobView*>& queue, const PolicyContext&) const override {
    auto key = [](const JobView* j) {
      return std::make_tuple(-j->priority, j->attained_service_s * j->gpus, j->arrival_s);
    };
    SortStable(queue,
                     [&](const JobView* a, const JobView* b) { return key(a) < key(b); });
  }
};

}  // namespace

std::unique_ptr<Policy> MakeLas() { return std::make_unique<Las>(); }

}  // namespace synergy::policies
