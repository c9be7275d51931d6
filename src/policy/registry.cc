#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "policies.h"

namespace synergy {

void Policy::Order(std::vector<const JobView*>& queue, const PolicyContext& context) const {
  // Already in order (any queue whose keys did not move): one pass, each
  // key once, nothing allocated. SelectForRound checks the order in its own
  // pass over the queue and calls this only on a queue out of order.
  if (queue.empty()) return;
  bool sorted = true;
  OrderKey previous = Key(*queue.front(), context);
  for (size_t i = 1; i < queue.size() && sorted; ++i) {
    const OrderKey key = Key(*queue[i], context);
    sorted = !(key < previous);
    previous = key;
  }
  if (sorted) return;
  // Each key once (FTF's is a few divisions), then the stable sort.
  std::vector<std::pair<OrderKey, const JobView*>> keyed;
  keyed.reserve(queue.size());
  for (const JobView* job : queue) keyed.emplace_back(Key(*job, context), job);
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
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
