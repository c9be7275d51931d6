#include "synergy/free_server_index.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#ifdef __SSE2__
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace synergy {
namespace {
constexpr float kNone = -std::numeric_limits<float>::infinity();
constexpr double kFloatMost = std::numeric_limits<float>::max();

// The next float below / above a finite float f: its bits one step
// toward -infinity / +infinity (inline, not libm's nextafterf: a round
// makes hundreds of thousands of these).
float StepDown(float f) {
  if (f == 0) return -std::numeric_limits<float>::denorm_min();
  const auto bits = std::bit_cast<uint32_t>(f);
  return std::bit_cast<float>(f > 0 ? bits - 1 : bits + 1);
}
float StepUp(float f) { return -StepDown(-f); }

// The least float >= x. Beyond the floats' range: +infinity above, the
// lowest float below. A NaN room holds nothing, as in the walk: -infinity,
// as an absent slot (left NaN, a node's maximum could be NaN and hide the
// servers beside it).
float RoundedUp(double x) {
  if (std::isnan(x)) return kNone;
  if (x > kFloatMost) return std::numeric_limits<float>::infinity();
  if (x < -kFloatMost) return -std::numeric_limits<float>::max();
  const float f = static_cast<float>(x);
  return static_cast<double>(f) < x ? StepUp(f) : f;
}

// The greatest float <= x, NaN for NaN (it fits nowhere). Beyond the
// floats' range: the largest float above, the lowest below, which every
// present room holds and no absent one does.
float RoundedDown(double x) {
  if (x > kFloatMost) return std::numeric_limits<float>::max();
  if (x < -kFloatMost) return -std::numeric_limits<float>::max();
  const float f = static_cast<float>(x);
  return static_cast<double>(f) > x ? StepDown(f) : f;
}

// A server's room as the index holds it.
FreeServerIndex::Bound RoundedUpRoom(const Resources& room) {
  return FreeServerIndex::Bound{RoundedUp(room.cpus), RoundedUp(room.mem_gb), RoundedUp(room.storage_mbps)};
}

// The largest of `values` with slot `slot` replaced by `value`. The slot
// is replaced in registers, not in memory first: a store of one float
// read back at once in a 16-byte load cannot be forwarded, and waited for
// the store to reach the cache (half of Put's time at 65,536 GPUs). No
// value is NaN (RoundedUp makes a NaN room -infinity), so the maximum does
// not depend on the order the lanes are compared in.
float MostWith(const float (&values)[8], int slot, float value) {
#ifdef __SSE2__
  const __m128i lanes = _mm_set1_epi32(slot);
  const __m128 in_low = _mm_castsi128_ps(_mm_cmpeq_epi32(lanes, _mm_setr_epi32(0, 1, 2, 3)));
  const __m128 in_high = _mm_castsi128_ps(_mm_cmpeq_epi32(lanes, _mm_setr_epi32(4, 5, 6, 7)));
  const __m128 replacing = _mm_set1_ps(value);
  const __m128 low = _mm_or_ps(_mm_and_ps(in_low, replacing), _mm_andnot_ps(in_low, _mm_load_ps(&values[0])));
  const __m128 high = _mm_or_ps(_mm_and_ps(in_high, replacing), _mm_andnot_ps(in_high, _mm_load_ps(&values[4])));
  __m128 most = _mm_max_ps(low, high);
  most = _mm_max_ps(most, _mm_movehl_ps(most, most));
  most = _mm_max_ss(most, _mm_shuffle_ps(most, most, 1));
  return _mm_cvtss_f32(most);
#else
  float most = value;
  for (int j = 0; j < 8; ++j) {
    if (j != slot) most = std::max(most, values[j]);
  }
  return most;
#endif
}
}  // namespace

FreeServerIndex::FreeServerIndex(const std::vector<Resources>& available)
    : servers_(static_cast<int>(available.size())), free_of_(available.size(), 0), room_of_(available.size()) {
  size_t nodes = std::max<size_t>(1, (available.size() + kFanout - 1) / kFanout);
  for (;;) {
    level_start_[static_cast<size_t>(levels_++)] = tree_nodes_;
    tree_nodes_ += nodes;
    if (nodes == 1) break;
    nodes = (nodes + kFanout - 1) / kFanout;
  }
  arrived_.assign(available.size(), false);
  // Straight into the trees: every server comes in at once.
  for (size_t s = 0; s < available.size(); ++s) {
    const Resources& room = available[s];
    free_of_[s] = room.gpus;
    room_of_[s] = Room{room.cpus, room.mem_gb, room.storage_mbps};
    if (room.gpus <= 0) continue;
    MakeTree(room.gpus);
    Put(room.gpus, static_cast<int>(s), RoundedUpRoom(room));
  }
  for (int free = 1; free < static_cast<int>(top_.size()); ++free) UpdateTop(free);
}

unsigned FreeServerIndex::Holding(const Node& node, int first_slot, const Need& need) {
  unsigned holding = 0;
#ifdef __SSE2__
  // Four slots a compare: a search spends most of its time here.
  const __m128 cpus = _mm_set1_ps(need.bound_[0]);
  const __m128 mem_gb = _mm_set1_ps(need.bound_[1]);
  const __m128 storage_mbps = _mm_set1_ps(need.bound_[2]);
  for (int j = 0; j < kFanout; j += 4) {
    const __m128 holds = _mm_and_ps(_mm_and_ps(_mm_cmple_ps(cpus, _mm_load_ps(&node.cpus[j])),
                                               _mm_cmple_ps(mem_gb, _mm_load_ps(&node.mem_gb[j]))),
                                    _mm_cmple_ps(storage_mbps, _mm_load_ps(&node.storage_mbps[j])));
    holding |= static_cast<unsigned>(_mm_movemask_ps(holds)) << j;
  }
#else
  for (int j = 0; j < kFanout; ++j) {
    const bool holds = (need.bound_[0] <= node.cpus[j]) & (need.bound_[1] <= node.mem_gb[j]) &
                       (need.bound_[2] <= node.storage_mbps[j]);
    holding |= static_cast<unsigned>(holds) << j;
  }
#endif
  return holding & (~0u << first_slot);
}

void FreeServerIndex::MakeTree(int free_gpus) {
  if (static_cast<int>(by_free_.size()) <= free_gpus) {
    by_free_.resize(static_cast<size_t>(free_gpus) + 1);
    tree_top_.resize(by_free_.size(), Bound{kNone, kNone, kNone});
    top_.resize(by_free_.size(), Bound{kNone, kNone, kNone});
    arrivals_.resize(by_free_.size());
    failed_.resize(by_free_.size());
  }
  Tree& tree = by_free_[free_gpus];
  if (tree.empty()) {
    Node none;
    std::fill(std::begin(none.cpus), std::end(none.cpus), kNone);
    std::fill(std::begin(none.mem_gb), std::end(none.mem_gb), kNone);
    std::fill(std::begin(none.storage_mbps), std::end(none.storage_mbps), kNone);
    tree.assign(tree_nodes_, none);
  }
}

void FreeServerIndex::Put(int free_gpus, int server, Bound room) {
  Tree& tree = by_free_[free_gpus];
  size_t n = static_cast<size_t>(server) / kFanout;
  int slot = server % kFanout;
  auto [cpus, mem_gb, storage_mbps] = room;
  for (size_t level = 0;; ++level) {
    Node& node = tree[level_start_[level] + n];
    // Unchanged here: unchanged above (most placements change no maximum).
    if (node.cpus[slot] == cpus && node.mem_gb[slot] == mem_gb && node.storage_mbps[slot] == storage_mbps) return;
    const float most_cpus = MostWith(node.cpus, slot, cpus);
    const float most_mem_gb = MostWith(node.mem_gb, slot, mem_gb);
    const float most_storage_mbps = MostWith(node.storage_mbps, slot, storage_mbps);
    node.cpus[slot] = cpus;
    node.mem_gb[slot] = mem_gb;
    node.storage_mbps[slot] = storage_mbps;
    cpus = most_cpus;
    mem_gb = most_mem_gb;
    storage_mbps = most_storage_mbps;
    if (level + 1 == static_cast<size_t>(levels_)) {
      tree_top_[free_gpus] = Bound{cpus, mem_gb, storage_mbps};
      return;
    }
    slot = static_cast<int>(n % kFanout);
    n /= kFanout;
  }
}

void FreeServerIndex::UpdateTop(int free_gpus) {
  Bound top = tree_top_[free_gpus];
  const Arrivals& arrivals = arrivals_[free_gpus];
  for (int i = 0; i < arrivals.kept; ++i) {
    const Bound& room = arrivals.rooms[i];
    top = Bound{std::max(top.cpus, room.cpus), std::max(top.mem_gb, room.mem_gb),
                std::max(top.storage_mbps, room.storage_mbps)};
  }
  top_[free_gpus] = top;
}

int FreeServerIndex::Arrivals::IndexOf(int server) const {
  int i = 0;
  while (servers[i] != server) ++i;
  return i;
}

void FreeServerIndex::Arrivals::RemoveAt(int i) {
  std::copy(servers.begin() + i + 1, servers.begin() + kept, servers.begin() + i);
  std::copy(rooms.begin() + i + 1, rooms.begin() + kept, rooms.begin() + i);
  --kept;
}

void FreeServerIndex::Enter(int free_gpus, int server, Bound room) {
  Arrivals& arrivals = arrivals_[free_gpus];
  if (arrivals.kept == kArrivalsKept) {
    // The oldest has stayed: into the tree.
    Put(free_gpus, arrivals.servers[0], arrivals.rooms[0]);
    arrived_[arrivals.servers[0]] = false;
    arrivals.RemoveAt(0);
  }
  arrivals.servers[arrivals.kept] = server;
  arrivals.rooms[arrivals.kept] = room;
  ++arrivals.kept;
  arrived_[server] = true;
  UpdateTop(free_gpus);
}

void FreeServerIndex::Leave(int free_gpus, int server) {
  if (arrived_[server]) {
    Arrivals& arrivals = arrivals_[free_gpus];
    arrivals.RemoveAt(arrivals.IndexOf(server));
    arrived_[server] = false;
  } else {
    Put(free_gpus, server, Bound{kNone, kNone, kNone});
  }
  UpdateTop(free_gpus);
}

void FreeServerIndex::Set(int server, const Resources& available) {
  const int was = free_of_[server];
  const int now = available.gpus;
  if (was > 0 && was != now) Leave(was, server);
  free_of_[server] = now;
  room_of_[server] = Room{available.cpus, available.mem_gb, available.storage_mbps};
  if (now <= 0) return;
  MakeTree(now);
  failed_[now].Forget(room_of_[server]);
  const Bound room = RoundedUpRoom(available);
  if (was != now) {
    Enter(now, server, room);
    return;
  }
  // Its room changed in its count.
  if (arrived_[server]) {
    Arrivals& arrivals = arrivals_[now];
    arrivals.rooms[arrivals.IndexOf(server)] = room;
  } else {
    Put(now, server, room);
  }
  UpdateTop(now);
}

int FreeServerIndex::Descend(const Tree& tree, int level, size_t n, int first_slot, const Need& need) const {
  // A slot can hold the need in each dimension through different
  // children, or only through rounding: the search then backs out of it
  // and goes on to the next. `pending[l]`: the slots of the path's node at
  // level l still to search (a loop, not a recursion: most searches go
  // straight down, and a call a level was a quarter of their cost).
  const int from_level = level;
  std::array<unsigned, 12> pending;
  pending[static_cast<size_t>(level)] = Holding(NodeAt(tree, level, n), first_slot, need);
  for (;;) {
    if (level == 0) {
      for (unsigned holding = pending[0]; holding != 0; holding &= holding - 1) {
        const size_t server = n * kFanout + static_cast<size_t>(__builtin_ctz(holding));
        if (Fits(need, room_of_[server])) return static_cast<int>(server);
      }
      pending[0] = 0;
    }
    // Up to the nearest node on the path with a slot left, then down its next.
    while (pending[static_cast<size_t>(level)] == 0) {
      if (level == from_level) return -1;
      ++level;
      n /= kFanout;
    }
    unsigned& holding = pending[static_cast<size_t>(level)];
    n = n * kFanout + static_cast<size_t>(__builtin_ctz(holding));
    holding &= holding - 1;
    --level;
    pending[static_cast<size_t>(level)] = Holding(NodeAt(tree, level, n), 0, need);
  }
}

// Absent slots hold -infinity: a need below the floats' range is bounded
// by the lowest float, which every present room holds and no absent one
// does, and checked in doubles as it is (NaN fits nowhere).
FreeServerIndex::Need::Need(const Resources& need)
    : bound_{RoundedDown(need.cpus), RoundedDown(need.mem_gb), RoundedDown(need.storage_mbps)},
      exact_{need.cpus, need.mem_gb, need.storage_mbps} {}

void FreeServerIndex::Failed::Forget(const Room& room) {
  int kept_now = 0;
  for (int i = 0; i < kept; ++i) {
    const Room& f = needs[i];
    if (f.cpus <= room.cpus && f.mem_gb <= room.mem_gb && f.storage_mbps <= room.storage_mbps) continue;
    needs[kept_now++] = f;
  }
  kept = kept_now;
  if (next >= kept) next = 0;
}

void FreeServerIndex::Failed::Remember(const Need& need) {
  const Room room{need.exact_[0], need.exact_[1], need.exact_[2]};
  if (kept < kFailedKept) {
    needs[kept++] = room;
  } else {
    needs[next] = room;
    next = (next + 1) % kFailedKept;
  }
}

bool FreeServerIndex::Failed::Fails(const Need& need) const {
  for (int i = 0; i < kept; ++i) {
    const Room& f = needs[i];
    if (f.cpus <= need.exact_[0] && f.mem_gb <= need.exact_[1] && f.storage_mbps <= need.exact_[2]) return true;
  }
  return false;
}

int FreeServerIndex::FirstFitting(int free_gpus, int from, const Resources& need) const {
  return FirstFitting(free_gpus, from, Need(need));
}

int FreeServerIndex::FirstFitting(int free_gpus, int from, const Need& need) const {
  // A count with no tree, or where nothing can hold the need, has no server for it.
  if (from >= servers_ || !MayHold(free_gpus, need)) return -1;
  if (failed_[free_gpus].Fails(need)) return -1;
  int found = -1;
  const Arrivals& arrivals = arrivals_[free_gpus];
  for (int i = 0; i < arrivals.kept; ++i) {
    const int server = arrivals.servers[i];
    if (server < from || (found >= 0 && server > found)) continue;
    if (Fits(need, room_of_[static_cast<size_t>(server)])) found = server;
  }
  const int in_tree = FirstInTree(free_gpus, from, need);
  if (in_tree >= 0 && (found < 0 || in_tree < found)) found = in_tree;
  if (found < 0 && from <= 0) failed_[free_gpus].Remember(need);
  return found;
}

int FreeServerIndex::FirstInTree(int free_gpus, int from, const Need& need) const {
  if (!MayFit(need, tree_top_[free_gpus])) return -1;
  const Tree& tree = by_free_[free_gpus];
  const int top_level = levels_ - 1;
  if (from <= 0) return Descend(tree, top_level, 0, 0, need);
  // Up from `from`'s node: at each level, the slots after the subtree just
  // searched.
  size_t n = static_cast<size_t>(from) / kFanout;
  int first_slot = from % kFanout;
  for (int level = 0; level <= top_level; ++level) {
    const int found = Descend(tree, level, n, first_slot, need);
    if (found >= 0) return found;
    first_slot = static_cast<int>(n % kFanout) + 1;  // 8: no slot left in the parent
    n /= kFanout;
  }
  return -1;
}

}  // namespace synergy
