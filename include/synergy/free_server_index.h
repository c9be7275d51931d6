#pragma once
// The servers of a round, searchable by free GPUs and room: the first
// server, in index order, with exactly so many free GPUs whose available
// CPUs, memory and storage hold a demand. Placement walks servers in (free
// GPUs, index) order and takes the first that fits; at tens of thousands
// of GPUs most of a walk was over servers whose GPUs were free but whose
// CPUs or memory were not (issue 20). For each free-GPU count a tree over
// the servers keeps, per subtree, the most of each resource any of its
// servers with that count has left, and a search skips every subtree that
// cannot hold the demand.
//
// The trees are eight-way: a node keeps its eight children's rooms a
// dimension at a time, so a change or a search at 8,192 servers touches
// five nodes, not the thirteen levels of a binary tree, and compares a
// node's children together. Nodes hold floats, rounded up from the
// servers' rooms, and a search rounds its need down: a node may let a
// search in that finds nothing below it, never keep one out. Each server
// found is checked against its exact room in doubles before it is
// returned. Floats halve the nodes (96 bytes, not 192) and compare four
// slots at once; at 65,536 GPUs the trees no longer fit the cache that
// the doubles' did not.
//
// The last few servers to come into a count are kept beside its tree, not
// in it, and a search checks them too. Most servers pass through a count
// for a placement or two (a server filled by 1-GPU jobs goes 8, 7, 6, ...
// free GPUs in turn): each pass was a walk up the whole height of two
// trees, in and out. Now a server walks into a tree only when it stays
// while more arrive, and out of one only when it leaves from the tree.
//
// A search that finds nothing is remembered for its count, until a server
// comes into the count (or its room grows) with room for it: a larger need
// then fails without a search. At 65,536 GPUs a third of the searches
// failed, each costing half again a found one, most for a need that had
// failed before. Searches therefore write to the index: one index is not
// for threads to search at once.
#include <array>
#include <cstddef>
#include <vector>

#include "synergy/resources.h"

namespace synergy {

class FreeServerIndex {
 public:
  // `available[s]`: what server s has left (its free GPUs in .gpus).
  explicit FreeServerIndex(const std::vector<Resources>& available);

  // Server s now has `available` left.
  void Set(int server, const Resources& available);

  // The lowest server index >= `from` with exactly `free_gpus` free GPUs
  // (>= 1) where need.cpus, need.mem_gb and need.storage_mbps fit what is
  // left (as Resources::FitsIn compares them), or -1.
  int FirstFitting(int free_gpus, int from, const Resources& need) const;

  // A room rounded up to floats, as the index holds it.
  struct Bound {
    float cpus;
    float mem_gb;
    float storage_mbps;
  };
  // A need made ready for searching: rounded once, searched for in as many
  // trees and from as many servers as a placement asks.
  class Need {
   public:
    explicit Need(const Resources& need);

   private:
    friend class FreeServerIndex;
    float bound_[3];   // cpus, mem_gb, storage_mbps rounded down to floats
    double exact_[3];  // as asked
  };
  int FirstFitting(int free_gpus, int from, const Need& need) const;

  // False when no server with `free_gpus` free GPUs holds `need`: a look
  // at the most any of them has left, without a search. A placement asks
  // each count in turn, and most counts hold nothing that fits.
  bool MayHold(int free_gpus, const Need& need) const {
    if (free_gpus <= 0 || free_gpus >= static_cast<int>(top_.size())) return false;
    return MayFit(need, top_[free_gpus]);
  }

 private:
  static constexpr int kFanout = 8;
  struct Room {
    double cpus;
    double mem_gb;
    double storage_mbps;
  };
  // Whether `need` may fit in `most`, rounded (a server holding less may
  // be let in, none holding more kept out) / fits in `room` exactly.
  static bool MayFit(const Need& need, const Bound& most) {
    return need.bound_[0] <= most.cpus && need.bound_[1] <= most.mem_gb && need.bound_[2] <= most.storage_mbps;
  }
  static bool Fits(const Need& need, const Room& room) {
    return need.exact_[0] <= room.cpus && need.exact_[1] <= room.mem_gb && need.exact_[2] <= room.storage_mbps;
  }
  // A node's children, a dimension at a time. At level 0 the children are
  // servers (server s is slot s % 8 of node s / 8); at level l + 1, slot j
  // of node n holds the most of each dimension in node 8n + j of level l.
  // Each value is a server's room rounded up to a float; absent children
  // hold -infinity, which no need fits in.
  struct alignas(16) Node {
    float cpus[kFanout];
    float mem_gb[kFanout];
    float storage_mbps[kFanout];
  };
  using Tree = std::vector<Node>;  // the levels one after another, from 0

  // The slots of `node` from `first_slot` on whose rooms may hold `need`,
  // a bit each.
  static unsigned Holding(const Node& node, int first_slot, const Need& need);
  const Node& NodeAt(const Tree& tree, int level, size_t n) const { return tree[level_start_[level] + n]; }
  void MakeTree(int free_gpus);  // the tree, tops and arrivals of a count, made on first use
  // Sets `server`'s slot of tree `free_gpus` to `room` (rounded up; kNone:
  // absent), and tree_top_ when that changes; the caller then updates top_
  // (UpdateTop).
  void Put(int free_gpus, int server, Bound room);
  // `server` (its room rounded up in `room`) comes into / leaves count `free_gpus`.
  void Enter(int free_gpus, int server, Bound room);
  void Leave(int free_gpus, int server);
  void UpdateTop(int free_gpus);  // top_ from the tree's top and the arrivals
  // The first server from `from` in the tree of `free_gpus` that holds `need`, or -1.
  int FirstInTree(int free_gpus, int from, const Need& need) const;
  // The first server under node n of `level`, from slot `first_slot`, that
  // holds `need`, or -1.
  int Descend(const Tree& tree, int level, size_t n, int first_slot, const Need& need) const;

  int servers_ = 0;
  // Where each level's nodes begin in a tree; the last level is one node.
  // 8^11 places cover any int server index.
  std::array<size_t, 12> level_start_{};
  int levels_ = 0;
  size_t tree_nodes_ = 0;
  std::vector<int> free_of_;    // by server
  std::vector<Room> room_of_;   // by server: its exact room (tree slots and arrivals hold it rounded up)
  std::vector<Tree> by_free_;   // by free GPU count; empty until a server has that count
  std::vector<Bound> tree_top_;  // by free GPU count: the most of each dimension in its tree
  // By free GPU count: the servers that came into it last, oldest first,
  // with their rooms rounded up, kept out of its tree. One more arriving
  // puts the oldest into the tree.
  static constexpr int kArrivalsKept = 4;
  struct Arrivals {
    std::array<int, kArrivalsKept> servers;
    std::array<Bound, kArrivalsKept> rooms;
    int kept = 0;
    int IndexOf(int server) const;  // precondition: `server` is kept
    void RemoveAt(int i);           // later arrivals move up a place
  };
  std::vector<Arrivals> arrivals_;
  std::vector<bool> arrived_;   // by server: among its count's arrivals, not in the tree
  std::vector<Bound> top_;      // by free GPU count: the most of each dimension in its tree and arrivals
  // By free GPU count: needs that no server of that count held when they
  // were last searched for, and that none can hold until a server comes
  // into the count or its room grows. A need at least as large in every
  // dimension fails too, without a search.
  static constexpr int kFailedKept = 4;
  struct Failed {
    std::array<Room, kFailedKept> needs;
    int kept = 0;
    int next = 0;  // the entry a new failure replaces once all are kept
    // Keeps `need`, which a search from the first server did not find.
    void Remember(const Need& need);
    // Whether a kept need is at most `need` in every dimension.
    bool Fails(const Need& need) const;
    // Drops the needs that `room` holds: a server with it came into the count.
    void Forget(const Room& room);
  };
  mutable std::vector<Failed> failed_;
};

}  // namespace synergy
