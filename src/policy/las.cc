#include "policies.h"

namespace synergy::policies {
namespace {

// Least attained service, counted in GPU-seconds (time held x GPUs), so a
// wide job is not favoured over a narrow one that ran as long.
class Las final : public Policy {
 public:
  std::string_view name() const override { return "las"; }
  Selection selection() const override { return Selection::kCountFitFirst; }
  OrderKey Key(const JobView& job, const PolicyContext&) const override {
    return {-static_cast<double>(job.priority), job.attained_service_s * job.gpus, job.arrival_s};
  }
  bool key_moves_with_time() const override { return false; }
};

}  // namespace

std::unique_ptr<Policy> MakeLas() { return std::make_unique<Las>(); }

}  // namespace synergy::policies
