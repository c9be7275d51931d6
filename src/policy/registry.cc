#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "policies.h"

namespace synergy {

void Policy::Order(std::vector<const JobView*>& queue, const PolicyContext& context) const {
  // Each key once (FTF's is a few divisions), then a check of the order
  // before the sort: FIFO's queue is already in order after its first round.
  std::vector<std::pair<OrderKey, const JobView*>> keyed;
  keyed.reserve(queue.size());
  for (const JobView* job : queue) keyed.emplace_back(Key(*job, context), job);
  const auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (std::is_sorted(keyed.begin(), keyed.end(), by_key)) return;
  std::stable_sort(keyed.begin(), keyed.end(), by_key);
  for (size_t i = 0; i < keyed.size(); ++i) queue[i] = keyed[i].second;
}

std::vector<std::string> PolicyNames() { return {"fifo", "srtf", "las", "ftf"}; }

absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(std::string_view name) {
  if (name == "fifo") return policies::MakeFifo();
  if (name == "srtf") return policies::MakeSrtf();
  if (name == "las") return policies::MakeLas();
  if (name == "ftf") return policies::MakeFtf();
  return absl::InvalidArgumentError(absl::StrCat("policy: '", std::string(name), "' is not one of ",
                                                 absl::StrJoin(PolicyNames(), ", ")));
}

}  // namespace synergy
