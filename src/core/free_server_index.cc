#include "synergy/free_server_index.h"

#include <algorithm>
#include <limits>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace synergy {
namespace {
constexpr double kNone = -std::numeric_limits<double>::infinity();

// The largest of a node's eight values (rooms are never NaN).
double Most(const double (&values)[8]) {
#ifdef __SSE2__
  const __m128d most = _mm_max_pd(_mm_max_pd(_mm_load_pd(&values[0]), _mm_load_pd(&values[2])),
                                  _mm_max_pd(_mm_load_pd(&values[4]), _mm_load_pd(&values[6])));
  return std::max(_mm_cvtsd_f64(most), _mm_cvtsd_f64(_mm_unpackhi_pd(most, most)));
#else
  return *std::max_element(std::begin(values), std::end(values));
#endif
}
}  // namespace

FreeServerIndex::FreeServerIndex(const std::vector<Resources>& available)
    : servers_(static_cast<int>(available.size())), free_of_(available.size(), 0) {
  size_t nodes = std::max<size_t>(1, (available.size() + kFanout - 1) / kFanout);
  for (;;) {
    level_start_[static_cast<size_t>(levels_++)] = tree_nodes_;
    tree_nodes_ += nodes;
    if (nodes == 1) break;
    nodes = (nodes + kFanout - 1) / kFanout;
  }
  for (size_t s = 0; s < available.size(); ++s) Set(static_cast<int>(s), available[s]);
}

unsigned FreeServerIndex::Holding(const Node& node, int first_slot, const Resources& need) {
  unsigned holding = 0;
#ifdef __SSE2__
  // Two slots a compare: a search spends most of its time here.
  const __m128d cpus = _mm_set1_pd(need.cpus);
  const __m128d mem_gb = _mm_set1_pd(need.mem_gb);
  const __m128d storage_mbps = _mm_set1_pd(need.storage_mbps);
  for (int j = 0; j < kFanout; j += 2) {
    const __m128d holds = _mm_and_pd(_mm_and_pd(_mm_cmple_pd(cpus, _mm_load_pd(&node.cpus[j])),
                                                _mm_cmple_pd(mem_gb, _mm_load_pd(&node.mem_gb[j]))),
                                     _mm_cmple_pd(storage_mbps, _mm_load_pd(&node.storage_mbps[j])));
    holding |= static_cast<unsigned>(_mm_movemask_pd(holds)) << j;
  }
#else
  for (int j = 0; j < kFanout; ++j) {
    const bool holds = (need.cpus <= node.cpus[j]) & (need.mem_gb <= node.mem_gb[j]) &
                       (need.storage_mbps <= node.storage_mbps[j]);
    holding |= static_cast<unsigned>(holds) << j;
  }
#endif
  return holding & (~0u << first_slot);
}

FreeServerIndex::Tree& FreeServerIndex::TreeOf(int free_gpus) {
  if (static_cast<int>(by_free_.size()) <= free_gpus) by_free_.resize(static_cast<size_t>(free_gpus) + 1);
  Tree& tree = by_free_[free_gpus];
  if (tree.empty()) {
    Node none;
    std::fill(std::begin(none.cpus), std::end(none.cpus), kNone);
    std::fill(std::begin(none.mem_gb), std::end(none.mem_gb), kNone);
    std::fill(std::begin(none.storage_mbps), std::end(none.storage_mbps), kNone);
    tree.assign(tree_nodes_, none);
  }
  return tree;
}

void FreeServerIndex::Put(Tree& tree, int server, Room room) {
  size_t n = static_cast<size_t>(server) / kFanout;
  int slot = server % kFanout;
  for (size_t level = 0;; ++level) {
    Node& node = tree[level_start_[level] + n];
    // Unchanged here: unchanged above (most placements change no maximum).
    if (node.cpus[slot] == room.cpus && node.mem_gb[slot] == room.mem_gb &&
        node.storage_mbps[slot] == room.storage_mbps) {
      return;
    }
    node.cpus[slot] = room.cpus;
    node.mem_gb[slot] = room.mem_gb;
    node.storage_mbps[slot] = room.storage_mbps;
    if (level + 1 == static_cast<size_t>(levels_)) return;
    room = Room{Most(node.cpus), Most(node.mem_gb), Most(node.storage_mbps)};
    slot = static_cast<int>(n % kFanout);
    n /= kFanout;
  }
}

void FreeServerIndex::Set(int server, const Resources& available) {
  const int was = free_of_[server];
  if (was > 0 && was != available.gpus) Put(by_free_[was], server, Room{kNone, kNone, kNone});
  free_of_[server] = available.gpus;
  if (available.gpus > 0) {
    Put(TreeOf(available.gpus), server, Room{available.cpus, available.mem_gb, available.storage_mbps});
  }
}

int FreeServerIndex::Descend(const Tree& tree, int level, size_t n, int first_slot, const Resources& need) const {
  // A slot can hold the demand in each dimension through different
  // children: the search then backs out of it and goes on to the next.
  for (unsigned holding = Holding(NodeAt(tree, level, n), first_slot, need); holding != 0;
       holding &= holding - 1) {
    const size_t child = n * kFanout + static_cast<size_t>(__builtin_ctz(holding));
    if (level == 0) return static_cast<int>(child);  // a server's own room: it holds the demand
    const int found = Descend(tree, level - 1, child, 0, need);
    if (found >= 0) return found;
  }
  return -1;
}

int FreeServerIndex::FirstFitting(int free_gpus, int from, const Resources& asked) const {
  if (free_gpus <= 0 || free_gpus >= static_cast<int>(by_free_.size()) || by_free_[free_gpus].empty()) return -1;
  if (from >= servers_) return -1;
  // Empty slots hold -infinity: a need of -infinity is searched as the
  // lowest finite value, which every server's room holds and no empty slot
  // does, as the walk would find it (NaN stays NaN and fits nowhere).
  const double lowest = std::numeric_limits<double>::lowest();
  Resources need = asked;
  need.cpus = std::max(need.cpus, lowest);
  need.mem_gb = std::max(need.mem_gb, lowest);
  need.storage_mbps = std::max(need.storage_mbps, lowest);
  const Tree& tree = by_free_[free_gpus];
  const int top = levels_ - 1;
  if (from <= 0) return Descend(tree, top, 0, 0, need);
  if (Holding(NodeAt(tree, top, 0), 0, need) == 0) return -1;
  // Up from `from`'s node: at each level, the slots after the subtree just
  // searched.
  size_t n = static_cast<size_t>(from) / kFanout;
  int first_slot = from % kFanout;
  for (int level = 0; level <= top; ++level) {
    const int found = Descend(tree, level, n, first_slot, need);
    if (found >= 0) return found;
    first_slot = static_cast<int>(n % kFanout) + 1;  // 8: no slot left in the parent
    n /= kFanout;
  }
  return -1;
}

}  // namespace synergy
