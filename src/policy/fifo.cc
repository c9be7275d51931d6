#include "policies.h"

namespace synergy::policies {
namespace {

class Fifo final : public Policy {
 public:
  std::string_view name() const override { return "fifo"; }
  Selection selection() const override { return Selection::kWalkQueue; }
  OrderKey Key(const JobView& job, const PolicyContext&) const override { return {job.arrival_s, 0, 0}; }
  bool key_moves_with_time() const override { return false; }
};

}  // namespace

std::unique_ptr<Policy> MakeFifo() { return std::make_unique<Fifo>(); }

}  // namespace synergy::policies
