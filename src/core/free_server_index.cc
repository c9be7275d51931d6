#include "synergy/free_server_index.h"

#include <algorithm>
#include <limits>

namespace synergy {
namespace {
constexpr double kNone = -std::numeric_limits<double>::infinity();
}  // namespace

FreeServerIndex::FreeServerIndex(const std::vector<Resources>& available) : free_of_(available.size(), 0) {
  while (leaves_ < static_cast<int>(available.size())) leaves_ *= 2;
  for (size_t s = 0; s < available.size(); ++s) Set(static_cast<int>(s), available[s]);
}

bool FreeServerIndex::Holds(const Room& room, const Resources& need) {
  return need.cpus <= room.cpus && need.mem_gb <= room.mem_gb && need.storage_mbps <= room.storage_mbps;
}

FreeServerIndex::Tree& FreeServerIndex::TreeOf(int free_gpus) {
  if (static_cast<int>(by_free_.size()) <= free_gpus) by_free_.resize(static_cast<size_t>(free_gpus) + 1);
  Tree& tree = by_free_[free_gpus];
  if (tree.empty()) tree.assign(2 * static_cast<size_t>(leaves_), Room{kNone, kNone, kNone});
  return tree;
}

void FreeServerIndex::Put(int free_gpus, int server, const Room& room) {
  Tree& tree = TreeOf(free_gpus);
  size_t i = static_cast<size_t>(leaves_ + server);
  tree[i] = room;
  for (i /= 2; i >= 1; i /= 2) {
    const Room& a = tree[2 * i];
    const Room& b = tree[2 * i + 1];
    const Room most{std::max(a.cpus, b.cpus), std::max(a.mem_gb, b.mem_gb), std::max(a.storage_mbps, b.storage_mbps)};
    Room& node = tree[i];
    // Unchanged here: unchanged above (most placements change no maximum).
    if (most.cpus == node.cpus && most.mem_gb == node.mem_gb && most.storage_mbps == node.storage_mbps) break;
    node = most;
  }
}

void FreeServerIndex::Set(int server, const Resources& available) {
  const int was = free_of_[server];
  if (was > 0 && was != available.gpus) Put(was, server, Room{kNone, kNone, kNone});
  free_of_[server] = available.gpus;
  if (available.gpus > 0) Put(available.gpus, server, Room{available.cpus, available.mem_gb, available.storage_mbps});
}

int FreeServerIndex::Find(const Tree& tree, size_t node, int lo, int hi, int from, const Resources& need) const {
  if (hi <= from || !Holds(tree[node], need)) return -1;
  // At a leaf the room is the server's own: it holds the demand.
  if (hi - lo == 1) return lo;
  const int mid = lo + (hi - lo) / 2;
  const int left = Find(tree, 2 * node, lo, mid, from, need);
  return left >= 0 ? left : Find(tree, 2 * node + 1, mid, hi, from, need);
}

int FreeServerIndex::FirstFitting(int free_gpus, int from, const Resources& need) const {
  if (free_gpus <= 0 || free_gpus >= static_cast<int>(by_free_.size()) || by_free_[free_gpus].empty()) return -1;
  return Find(by_free_[free_gpus], 1, 0, leaves_, from, need);
}

}  // namespace synergy
