#pragma once
// The cluster as a round's placement sees it: what each server has free,
// which jobs hold what, and the resources tentatively held while a
// multi-GPU placement is being tried.
//
// Mechanisms change it only through Commit / Release, so the invariants hold
// at every step: no server is over-committed in any dimension, and a job is
// either absent or holds exactly its GPUs.
#include <algorithm>
#include <optional>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "synergy/cluster.h"
#include "synergy/free_server_index.h"
#include "synergy/job.h"
#include "synergy/plan.h"

namespace synergy {

// How a job's GPUs are chosen among the free ones (the reference's
// `placement` switch).
enum class GpuPlacement {
  // A multi-GPU job on one server if its whole demand fits there (the one
  // with the fewest free GPUs); else GPU by GPU from the servers with the
  // fewest free GPUs. The reference's default (SYNERGY_PLACEMENT), and what
  // its published numbers use.
  kConsolidate,
  // GPU by GPU in server order, the first that fits (the reference's
  // --no_placement, SYNERGY_RANDOM).
  kFirstFit,
};

class PlacementState {
 public:
  // The consolidating Fit searches a FreeServerIndex on clusters of more
  // than `indexed_from_servers` servers, and walks the servers by free GPUs
  // on smaller ones, where the walk costs less than keeping the index (on
  // 16 and 128 servers the simulator ran a quarter faster; on 1,024 the
  // index was ahead, on 8,192 three times). Both find the same servers.
  static constexpr int kIndexedFromServers = 256;
  explicit PlacementState(const Cluster& cluster,
                          GpuPlacement placement = GpuPlacement::kConsolidate,
                          int indexed_from_servers = kIndexedFromServers);

  const Cluster& cluster() const { return *cluster_; }
  int free_gpus() const { return free_gpus_; }
  Resources available(int server) const {
    return cluster_->servers()[server].capacity - used_[server];
  }
  const Resources& used(int server) const { return used_[server]; }

  // Where `demand` (a whole job's) would go under this state's GpuPlacement,
  // not committed. Each GPU brings demand/gpus with it, held on its server
  // while the rest are found, so a slice is that share added k times.
  // Returns the slices, ascending server index, or nullopt when the GPUs
  // cannot all be found.
  std::optional<Slices> Fit(const Resources& demand) const;
  // Where the proportional share of `gpus` GPUs would go: like Fit, but
  // each GPU brings its own server's share (Cluster::share_per_gpu_on).
  // The same as Fit(cluster().ProportionalShare(gpus)) when the share is
  // uniform.
  std::optional<Slices> FitShare(int gpus) const;

  // A placed job's place: where it stands in the plan's order, 0 for the
  // first committed. Places stay as they are for the rest of the round
  // (Release, which renumbers them, is for tests and tools). Mechanisms keep
  // what they know of the jobs they placed by place: a job's JobId needs a
  // hash lookup, and a round at 65,536 GPUs spent a cache miss on each of
  // its jobs inserting them into a map (issue 20).
  using Place = uint32_t;

  // Records `assignment` and takes its resources; its place is the
  // placed_count() before the call. Precondition: it fits.
  void Commit(Assignment assignment);
  // Gives back everything `job` holds and forgets its assignment; returns it.
  // Every later job moves up a place.
  Assignment Release(JobId job);
  // Replaces the slices and speedup of a job that is already placed, keeping
  // its place in the plan order and in the per-server lists.
  void Replace(JobId job, Slices slices, double speedup, bool at_ideal);
  void ReplaceAt(Place place, Slices slices, double speedup, bool at_ideal);

  // The job's assignment, or null when it is not placed. The lookup by
  // JobId is built the first time it is asked for.
  const Assignment* Find(JobId job) const;
  size_t placed_count() const { return order_.size(); }
  const Assignment& placed(Place place) const { return order_[place]; }
  // The jobs placed so far, in placement order.
  std::vector<JobId> placed_jobs() const;
  // The places of the jobs on `server` this round, in the order the TUNE
  // peer search last left them (it sorts this list in place, as the
  // reference does). Held in place up to a job a GPU of the usual 8-GPU
  // server: a round at tens of thousands of GPUs made a list (and grew it)
  // on every server.
  using PlaceList = absl::InlinedVector<Place, 8>;
  PlaceList& places_on_server(int server) { return places_on_server_[server]; }

  // Visits the servers that have at least `min_free` free GPUs, fewest free
  // GPUs first and then by index, until `visit(server)` returns false.
  template <typename Visit>
  void VisitByFreeGpus(int min_free, Visit visit) const {
    for (size_t free = std::max(1, min_free); free < by_free_gpus_.size(); ++free) {
      if (!by_free_gpus_[free].VisitEach(visit)) return;
    }
  }
  // The lowest server index with at least `min_free` free GPUs, or -1.
  int FirstWithFreeGpus(int min_free) const;
  // Visits the servers with a free GPU in index order until `visit` returns false.
  template <typename Visit>
  void VisitInIndexOrder(Visit visit) const {
    not_full_.VisitEach(visit);
  }

  // Records a job that a mechanism gave up on after changing peers.
  void MarkUnplaced(JobId job) { unplaced_.push_back(job); }

  // Set by an optimising mechanism; travels with the plan.
  SolverStats& solver_stats() { return solver_; }

  Plan TakePlan();

 private:
  void Take(const Slices& slices);
  void Give(const Slices& slices);

  // `whole_on(s)`: the job's whole demand if it all lands on server s;
  // `per_gpu_on(s)`: what each of its GPUs brings to server s.
  template <typename WholeOn, typename PerGpuOn>
  std::optional<Slices> FitConsolidated(int gpus, WholeOn whole_on, PerGpuOn per_gpu_on) const;
  template <typename PerGpuOn>
  std::optional<Slices> FitFirst(int gpus, PerGpuOn per_gpu_on) const;
  // FitConsolidated of `demand` (per_gpu on every server) through room_.
  std::optional<Slices> FitConsolidatedIndexed(const Resources& demand, const Resources& per_gpu) const;

  // Demands that failed since the state last changed. A demand with the same
  // GPUs that is at least as large in every dimension fails too: either
  // placement succeeds exactly when the servers' GPU counts, each capped at
  // how many per-GPU shares fit there, add up to the job's GPUs, and that sum
  // only shrinks as the share grows. Saves re-scanning the servers for the
  // many identical jobs of a long queue.
  mutable std::vector<Resources> failed_;

  const Cluster* cluster_;
  GpuPlacement placement_;
  void Reindex(int server, int old_free);

  std::vector<Resources> used_;
  int free_gpus_ = 0;
  // Servers by free GPU count (index = count; 0 is not kept), and the
  // servers with any free GPU: placement walks these, never the full list.
  // A set of server indices, a bit each: built, changed and walked in
  // ascending order far faster than a tree, at tens of thousands of GPUs.
  //
  // Two levels: a bit a server, and a bit a word of them that marks the
  // words with a server in them, so that walks skip empty stretches (and
  // empty sets) 4,096 servers a word.
  class ServerSet {
   public:
    explicit ServerSet(int servers = 0)
        : words_((static_cast<size_t>(servers) + 63) / 64), nonempty_((words_.size() + 63) / 64) {}
    void insert(int s) {
      const size_t w = static_cast<size_t>(s) >> 6;
      words_[w] |= uint64_t{1} << (s & 63);
      nonempty_[w >> 6] |= uint64_t{1} << (w & 63);
    }
    void erase(int s) {
      const size_t w = static_cast<size_t>(s) >> 6;
      words_[w] &= ~(uint64_t{1} << (s & 63));
      if (words_[w] == 0) nonempty_[w >> 6] &= ~(uint64_t{1} << (w & 63));
    }
    // Visits in ascending order until `visit` returns false; false then.
    template <typename F>
    bool VisitEach(F& visit) const {
      for (size_t i = 0; i < nonempty_.size(); ++i) {
        for (uint64_t words = nonempty_[i]; words != 0; words &= words - 1) {
          const size_t w = i * 64 + static_cast<size_t>(__builtin_ctzll(words));
          for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1) {
            if (!visit(static_cast<int>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits))))) return false;
          }
        }
      }
      return true;
    }

    size_t summary_words() const { return nonempty_.size(); }
    // Words 64i to 64i + 63, a bit each: set where the word holds a server.
    uint64_t nonempty(size_t i) const { return nonempty_[i]; }
    // Servers 64w to 64w + 63, a bit each.
    uint64_t word(size_t w) const { return words_[w]; }

   private:
    std::vector<uint64_t> words_;
    std::vector<uint64_t> nonempty_;
  };
  std::vector<ServerSet> by_free_gpus_;
  ServerSet not_full_;
  std::optional<FreeServerIndex> room_;  // the consolidating Fit's search, on large clusters
  std::vector<Assignment> order_;  // by place
  // JobId -> place, for order_[0, index_.size()): Find catches it up. Its
  // size is how far it has come, so a copy or a move stays consistent.
  mutable absl::flat_hash_map<JobId, Place> index_;
  void IndexPlaced() const;  // catches index_ up with order_
  std::vector<PlaceList> places_on_server_;
  std::vector<JobId> unplaced_;
  SolverStats solver_;
};

}  // namespace synergy
