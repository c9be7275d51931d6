#include <algorithm>
#include <array>
#include <cassert>
#include <tuple>
#include <utility>
#include <vector>

#include "mechanisms.h"

namespace synergy::mechanisms {
namespace {

using Vec = std::array<double, 4>;  // gpus, cpus, mem, storage

Vec ToVec(const Resources& r) { return {double(r.gpus), r.cpus, r.mem_gb, r.storage_mbps}; }

bool AllZero(const Vec& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
}
bool AllPositive(const Vec& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
}

// TUNE, the paper's heuristic (Algorithm 1):
//  1. ideal demand, placed by PlacementState::Fit;
//  2. else the proportional share (speedup 1), placed the same way;
//  3. else choose servers for the GPUs and, on each, revert co-located jobs
//     that hold more than proportional until the shortfall is covered;
//     then place it again.
class Tune final : public Mechanism {
 public:
  std::string_view name() const override { return "tune"; }
  bool uses_speedup() const override { return true; }
  bool prefers_large_jobs_first() const override { return true; }

  void PlaceFrom(Candidates& candidates, PlacementState& state) const override {
    Placed placed(state.placed_count(), nullptr);  // by place; jobs placed before are no peers to revert
    placed.reserve(placed.size() + static_cast<size_t>(state.free_gpus()));  // at most a job a GPU
    ForEachFitting(candidates, state, [&](const JobView& job) {
      if (PlaceOne(job, state, placed)) placed.push_back(&job);
      assert(placed.size() == state.placed_count());
    });
  }

 private:
  using Placed = std::vector<const JobView*>;  // the views of the placed jobs, by place

  // Places `job` (one Commit) and returns true, or marks it unplaced.
  bool PlaceOne(const JobView& job, PlacementState& state, const Placed& placed) const {
    const Cluster& cluster = state.cluster();
    if (TryPlaceIdeal(state, job)) return true;
    // What it asks for once peers make room: its ideal, or the share (of
    // whichever servers it lands on) when the ideal is above it. A job that
    // asks for the share has it as its ideal.
    const bool fall_back = !job.asks_for_share && AboveProportional(job.ideal_demand, cluster);
    if (fall_back && TryPlaceShare(state, job.id, job.gpus)) return true;
    const bool share = fall_back || job.asks_for_share;
    for (const auto& [server, gpus] : ServersForGpus(job.gpus, state)) {
      const Resources demand = share ? cluster.ShareOn(server, job.gpus) : job.ideal_demand;
      RevertPeers(server, gpus, job.gpus, demand, state, placed);
    }
    if (fall_back ? TryPlaceShare(state, job.id, job.gpus) : TryPlaceIdeal(state, job)) return true;
    state.MarkUnplaced(job.id);
    return false;
  }

  // Reverts jobs on `server` to proportional until the part of `demand` that
  // lands there (gpus_here of job_gpus) would fit.
  static void RevertPeers(int server, int gpus_here, int job_gpus, const Resources& demand,
                          PlacementState& state, const Placed& placed) {
    const Cluster& cluster = state.cluster();
    const double ratio = double(gpus_here) / job_gpus;
    const Vec want = ToVec(demand);
    const Vec avail = ToVec(state.available(server));
    Vec spare;
    for (int d = 0; d < 4; ++d) spare[d] = std::max(0.0, want[d] * ratio - avail[d]);
    if (AllZero(spare)) return;

    PlacementState::PlaceList& peers = state.places_on_server(server);
    // Jobs spanning fewest servers, then most CPU per GPU, then most memory
    // per GPU give back first. The list is sorted in place and stays sorted
    // for the next job (as in the reference).
    auto key = [&](PlacementState::Place place) {
      const Assignment& a = state.placed(place);
      Resources total = a.Total();
      return std::make_tuple(a.num_servers(), -(total.cpus / total.gpus), -(total.mem_gb / total.gpus));
    };
    std::stable_sort(peers.begin(), peers.end(),
                     [&](PlacementState::Place a, PlacementState::Place b) { return key(a) < key(b); });

    const Vec fair_per_gpu = ToVec(cluster.share_per_gpu_on(server));
    std::vector<PlacementState::Place> to_revert;
    for (PlacementState::Place place : peers) {
      if (placed[place] == nullptr) continue;  // placed before this mechanism ran: not its to revert
      const Assignment& a = state.placed(place);
      Resources total = a.Total();
      int here = 0;
      for (const Slice& s : a.slices) {
        if (s.server == server) here = s.resources.gpus;
      }
      const double share = double(here) / total.gpus;
      const Vec held = ToVec(total);
      Vec diff;
      for (int d = 0; d < 4; ++d) {
        const double excess = std::max(0.0, held[d] * share - fair_per_gpu[d] * here);
        diff[d] = std::max(0.0, spare[d] - excess);
      }
      if (AllZero(diff)) {
        to_revert.push_back(place);
        break;
      }
      if (AllPositive(diff)) continue;  // gives back nothing that is short
      to_revert.push_back(place);
      spare = diff;
    }
    for (PlacementState::Place place : to_revert) RevertToProportional(*placed[place], place, state);
  }

  // A reverted peer keeps its GPUs and servers; on each server it holds the
  // proportional share for its GPUs there (its ideal demand if that is not
  // above proportional), and it runs at speedup 1 this round.
  static void RevertToProportional(const JobView& peer, PlacementState::Place place, PlacementState& state) {
    const Cluster& cluster = state.cluster();
    const bool above = !peer.asks_for_share && AboveProportional(peer.ideal_demand, cluster);
    Slices slices = state.placed(place).slices;
    for (Slice& s : slices) {
      const Resources demand =
          above || peer.asks_for_share ? cluster.ShareOn(s.server, peer.gpus) : peer.ideal_demand;
      const double share = double(s.resources.gpus) / peer.gpus;
      s.resources = Resources{s.resources.gpus, demand.cpus * share, demand.mem_gb * share,
                              demand.storage_mbps * share};
    }
    state.ReplaceAt(place, std::move(slices), 1.0, !above);
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeTune() { return std::make_unique<Tune>(); }

}  // namespace synergy::mechanisms
