#include <algorithm>
#include <array>
#include <cassert>
#include <limits>
#include <vector>

#include "mechanisms.h"

namespace synergy::mechanisms {
namespace {

// TUNE over the whole sensitivity matrix. Where TUNE falls all the way back
// to proportional, a job gets instead the best point of its profile that
// fits what is free (never below proportional throughput); where peers must
// make room, the peers that lose the least throughput per core and per GB
// they give back step down first, one profile point at a time, and only as
// far as the shortfall needs.
class TuneGraded final : public Mechanism {
 public:
  std::string_view name() const override { return "tune-graded"; }
  bool uses_speedup() const override { return true; }
  bool prefers_large_jobs_first() const override { return true; }

  void PlaceFrom(Candidates& candidates, PlacementState& state) const override {
    // By place; jobs placed before this mechanism ran have none and give nothing back.
    std::vector<Placed> placed(state.placed_count());
    RoundOptions round_options(state.cluster());
    ForEachFitting(candidates, state, [&](const JobView& job) {
      const std::vector<Option>& options = round_options.For(job);
      if (PlaceOne(job, options, state, placed)) placed.push_back(Placed{&job, &options});
      assert(placed.size() == state.placed_count());
    });
  }

 private:
  struct Placed {
    const JobView* job = nullptr;
    const std::vector<Option>* options = nullptr;  // the round's, shared by its shape
  };

  static bool TryOptions(const JobView& job, const std::vector<Option>& options,
                         PlacementState& state) {
    for (const Option& o : options) {
      if (TryPlace(state, job.id, DemandFor(o, job.gpus), o.speedup, o.ideal)) return true;
    }
    return false;
  }

  bool PlaceOne(const JobView& job, const std::vector<Option>& options, PlacementState& state,
                const std::vector<Placed>& placed) const {
    if (TryPlaceIdeal(state, job)) return true;
    if (TryOptions(job, options, state)) return true;
    // Options are per-GPU points of the cluster's share; on servers that
    // give less per GPU, the share of the servers it lands on.
    if (TryPlaceShare(state, job.id, job.gpus)) return true;
    // Make room for the proportional share, the cheapest option.
    for (const auto& [server, gpus_here] : ServersForGpus(job.gpus, state)) {
      const Resources fair = state.cluster().ShareOn(server, job.gpus);
      const double ratio = double(gpus_here) / job.gpus;
      const Resources avail = state.available(server);
      std::array<double, 3> shortfall = {
          std::max(0.0, fair.cpus * ratio - avail.cpus),
          std::max(0.0, fair.mem_gb * ratio - avail.mem_gb),
          std::max(0.0, fair.storage_mbps * ratio - avail.storage_mbps)};
      GiveBack(server, shortfall, state, placed);
    }
    if (TryOptions(job, options, state) || TryPlaceShare(state, job.id, job.gpus)) return true;
    state.MarkUnplaced(job.id);
    return false;
  }

  // Steps peers on `server` down the profile until `shortfall` (cores, GB,
  // MB/s) is covered or no peer can give more. Each step is the move with the
  // least speedup lost per unit of short resource freed (each resource in
  // units of the proportional share per GPU).
  static void GiveBack(int server, std::array<double, 3> shortfall, PlacementState& state,
                       const std::vector<Placed>& placed) {
    const Resources& share = state.cluster().share_per_gpu();
    const std::array<double, 3> unit = {share.cpus, share.mem_gb, share.storage_mbps};
    auto covered = [&] { return shortfall[0] <= 0 && shortfall[1] <= 0 && shortfall[2] <= 0; };
    while (!covered()) {
      JobId best_job = -1;
      PlacementState::Place best_place = 0;
      const Option* best_option = nullptr;
      double best_score = std::numeric_limits<double>::infinity();
      std::array<double, 3> best_freed{};
      for (PlacementState::Place place : state.places_on_server(server)) {
        if (placed[place].options == nullptr) continue;
        const Assignment* a = &state.placed(place);
        const JobId id = a->job;
        int here = 0;
        for (const Slice& s : a->slices) {
          if (s.server == server) here = s.resources.gpus;
        }
        const Resources total = a->Total();
        const Resources current{1, total.cpus / total.gpus, total.mem_gb / total.gpus,
                                total.storage_mbps / total.gpus};
        for (const Option& o : *placed[place].options) {
          if (!o.per_gpu.FitsIn(current) || o.per_gpu == current || o.speedup > a->speedup) continue;
          const std::array<double, 3> freed = {(current.cpus - o.per_gpu.cpus) * here,
                                               (current.mem_gb - o.per_gpu.mem_gb) * here,
                                               (current.storage_mbps - o.per_gpu.storage_mbps) * here};
          double useful = 0;
          for (int d = 0; d < 3; ++d) {
            if (shortfall[d] > 0) useful += std::min(freed[d], shortfall[d]) / unit[d];
          }
          if (useful <= 0) continue;
          const double loss = (a->speedup - o.speedup) * total.gpus;
          const double score = loss / useful;
          if (score < best_score || (score == best_score && id < best_job)) {
            best_score = score;
            best_job = id;
            best_place = place;
            best_option = &o;
            best_freed = freed;
          }
        }
      }
      if (best_job < 0) return;
      const Option chosen = *best_option;
      Slices slices = state.placed(best_place).slices;
      for (Slice& s : slices) s.resources = DemandFor(chosen, s.resources.gpus);
      state.ReplaceAt(best_place, std::move(slices), chosen.speedup, chosen.ideal);
      for (int d = 0; d < 3; ++d) shortfall[d] -= best_freed[d];
    }
  }
};

}  // namespace

std::unique_ptr<Mechanism> MakeTuneGraded() { return std::make_unique<TuneGraded>(); }

}  // namespace synergy::mechanisms
