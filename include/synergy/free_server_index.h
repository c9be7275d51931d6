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

 private:
  struct Room {
    double cpus;
    double mem_gb;
    double storage_mbps;
  };
  using Tree = std::vector<Room>;  // heap order: node i's children are 2i and 2i+1; leaves from leaves_
  static bool Holds(const Room& room, const Resources& need);
  Tree& TreeOf(int free_gpus);  // made on first use
  void Put(int free_gpus, int server, const Room& room);
  int Find(const Tree& tree, size_t node, int lo, int hi, int from, const Resources& need) const;

  int leaves_ = 1;  // a power of two >= the servers
  std::vector<int> free_of_;    // by server
  std::vector<Tree> by_free_;   // by free GPU count; empty until a server has that count
};

}  // namespace synergy
