#include "policies.h"

namespace synergy::policies {
namespace {

class Srtf final : public Policy {
 public:
  std::string_view name() const override { return "srtf"; }
  Selection selection() const override { return Selection::kWalkQueue; }
  OrderKey Key(const JobView& job, const PolicyContext& context) const override {
    return {-static_cast<double>(job.priority), RemainingTime(job, context), job.arrival_s};
  }
  bool key_moves_with_time() const override { return false; }
};

}  // namespace

std::unique_ptr<Policy> MakeSrtf() { return std::make_unique<Srtf>(); }

}  // namespace synergy::policies
