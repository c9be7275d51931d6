#include "synergy/placement_state.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <queue>
#include <utility>

namespace synergy {
namespace {
std::vector<Resources> Capacities(const Cluster& cluster) {
  std::vector<Resources> capacities;
  capacities.reserve(cluster.servers().size());
  for (const ServerSpec& s : cluster.servers()) capacities.push_back(s.capacity);
  return capacities;
}
}  // namespace

Resources Assignment::Total() const {
  Resources total;
  for (const Slice& s : slices) total += s.resources;
  return total;
}

const Assignment* Plan::Find(JobId job) const {
  for (const Assignment& a : assignments) {
    if (a.job == job) return &a;
  }
  return nullptr;
}

PlacementState::PlacementState(const Cluster& cluster, GpuPlacement placement, int indexed_from_servers)
    : cluster_(&cluster),
      placement_(placement),
      used_(cluster.num_servers()),
      free_gpus_(cluster.total().gpus),
      by_free_gpus_(cluster.largest_server().gpus + 1, ServerSet(cluster.num_servers())),
      not_full_(cluster.num_servers()),
      places_on_server_(cluster.num_servers()) {
  // A round places at most a job a GPU: no rehash or regrowth within it.
  if (placement == GpuPlacement::kConsolidate && cluster.num_servers() > indexed_from_servers) {
    room_.emplace(Capacities(cluster));
  }
  order_.reserve(static_cast<size_t>(free_gpus_));
  for (int s = 0; s < cluster.num_servers(); ++s) {
    const int free = cluster.servers()[s].capacity.gpus;
    if (free > 0) {
      by_free_gpus_[free].insert(s);
      not_full_.insert(s);
    }
  }
}

void PlacementState::Reindex(int server, int old_free) {
  const int free = available(server).gpus;
  if (free == old_free) return;
  if (old_free > 0) by_free_gpus_[old_free].erase(server);
  if (free > 0) by_free_gpus_[free].insert(server);
  if (free > 0 && old_free <= 0) not_full_.insert(server);
  if (free <= 0 && old_free > 0) not_full_.erase(server);
}

int PlacementState::FirstWithFreeGpus(int min_free) const {
  // The counts that are enough together, a word of servers at a time: a
  // walk server by server went through every server left with a GPU or
  // two (issue 20).
  const size_t from = static_cast<size_t>(std::max(1, min_free));
  for (size_t i = 0; i < not_full_.summary_words(); ++i) {
    uint64_t words = 0;
    for (size_t free = from; free < by_free_gpus_.size(); ++free) words |= by_free_gpus_[free].nonempty(i);
    if (words == 0) continue;
    const size_t w = i * 64 + static_cast<size_t>(__builtin_ctzll(words));
    uint64_t enough = 0;
    for (size_t free = from; free < by_free_gpus_.size(); ++free) enough |= by_free_gpus_[free].word(w);
    return static_cast<int>(w * 64 + static_cast<size_t>(__builtin_ctzll(enough)));
  }
  return -1;
}

namespace {
// What a server with `left` gives a job GPU by GPU, up to `wanted` GPUs,
// each bringing `per_gpu`: summed k times, not multiplied, so the doubles
// are the reference's. Its .gpus is how many were taken (0: not one fits).
Resources TakeGpuByGpu(const Resources& left, const Resources& per_gpu, int wanted) {
  Resources held;
  int taken = 0;
  while (taken < left.gpus && taken < wanted && per_gpu.FitsIn(left - held)) {
    held += per_gpu;
    ++taken;
  }
  held.gpus = taken;
  return held;
}

Resources PerGpuShare(const Resources& demand) {
  // The reference's gpu_normalized_vector.
  const double g = demand.gpus;
  return Resources{1, demand.cpus / g, demand.mem_gb / g, demand.storage_mbps / g};
}
}  // namespace

std::optional<Slices> PlacementState::Fit(const Resources& demand) const {
  if (demand.gpus > free_gpus_ || demand.gpus <= 0) return std::nullopt;
  for (const Resources& f : failed_) {
    if (f.gpus == demand.gpus && f.FitsIn(demand)) return std::nullopt;
  }
  const Resources per_gpu = PerGpuShare(demand);
  auto per_gpu_on = [&](int) -> const Resources& { return per_gpu; };
  auto whole_on = [&](int) -> const Resources& { return demand; };
  std::optional<Slices> slices;
  if (placement_ == GpuPlacement::kFirstFit) {
    slices = FitFirst(demand.gpus, per_gpu_on);
  } else if (room_) {
    slices = FitConsolidatedIndexed(demand, per_gpu);
  } else {
    slices = FitConsolidated(demand.gpus, whole_on, per_gpu_on);
  }
  if (!slices) failed_.push_back(demand);
  return slices;
}

std::optional<Slices> PlacementState::FitShare(int gpus) const {
  if (cluster_->share_is_uniform()) return Fit(cluster_->ProportionalShare(gpus));
  if (gpus > free_gpus_ || gpus <= 0) return std::nullopt;
  auto whole_on = [&](int s) { return cluster_->ShareOn(s, gpus); };
  auto per_gpu_on = [&](int s) -> const Resources& { return cluster_->share_per_gpu_on(s); };
  return placement_ == GpuPlacement::kConsolidate ? FitConsolidated(gpus, whole_on, per_gpu_on)
                                                  : FitFirst(gpus, per_gpu_on);
}

template <typename PerGpuOn>
std::optional<Slices> PlacementState::FitFirst(int gpus, PerGpuOn per_gpu_on) const {
  Slices slices;
  int found = 0;
  VisitInIndexOrder([&](int s) {
    const Resources held = TakeGpuByGpu(available(s), per_gpu_on(s), gpus - found);
    if (held.gpus > 0) {
      slices.push_back(Slice{s, held});
      found += held.gpus;
    }
    return found < gpus;
  });
  if (found < gpus) return std::nullopt;
  return slices;
}

template <typename WholeOn, typename PerGpuOn>
std::optional<Slices> PlacementState::FitConsolidated(int gpus, WholeOn whole_on,
                                                                  PerGpuOn per_gpu_on) const {
  if (gpus > 1) {
    // The fewest free GPUs first, then the lowest index: the first server
    // visited that takes the whole demand is the reference's choice.
    int target = -1;
    VisitByFreeGpus(gpus, [&](int s) {
      if (!whole_on(s).FitsIn(available(s))) return true;
      target = s;
      return false;
    });
    if (target >= 0) return Slices{Slice{target, whole_on(target)}};
  }
  // GPU by GPU from a heap of (free GPUs, server): a server just taken from
  // sorts before every other, so the heap walk is this visit in (free,
  // index) order, taking from each server as many GPUs as still fit. Held
  // resources are added GPU by GPU (per_gpu summed k times, not
  // multiplied): the same doubles as the reference.
  Slices slices;
  int found = 0;
  VisitByFreeGpus(1, [&](int s) {
    const Resources held = TakeGpuByGpu(available(s), per_gpu_on(s), gpus - found);
    if (held.gpus > 0) {
      slices.push_back(Slice{s, held});
      found += held.gpus;
    }
    return found < gpus;
  });
  if (found < gpus) return std::nullopt;
  std::sort(slices.begin(), slices.end(),
            [](const Slice& a, const Slice& b) { return a.server < b.server; });
  return slices;
}

// FitConsolidated for one demand on every server, by the index: the same
// servers in the same order, without visiting those that cannot hold it.
std::optional<Slices> PlacementState::FitConsolidatedIndexed(const Resources& demand,
                                                                         const Resources& per_gpu) const {
  const int gpus = demand.gpus;
  const int most_free = static_cast<int>(by_free_gpus_.size()) - 1;
  if (gpus > 1) {
    const FreeServerIndex::Need whole(demand);
    for (int free = gpus; free <= most_free; ++free) {
      if (!room_->MayHold(free, whole)) continue;
      const int s = room_->FirstFitting(free, 0, whole);
      if (s >= 0) return Slices{Slice{s, demand}};
    }
  }
  Slices slices;
  int found = 0;
  const FreeServerIndex::Need one(per_gpu);
  for (int free = 1; free <= most_free && found < gpus; ++free) {
    if (!room_->MayHold(free, one)) continue;
    // The next server is searched for only while GPUs are still wanted:
    // most jobs are found on their first server.
    for (int s = room_->FirstFitting(free, 0, one); s >= 0; s = room_->FirstFitting(free, s + 1, one)) {
      // The index found it holds one GPU's worth: at least one is taken.
      const Resources held = TakeGpuByGpu(available(s), per_gpu, gpus - found);
      slices.push_back(Slice{s, held});
      found += held.gpus;
      if (found == gpus) break;
    }
  }
  if (found < gpus) return std::nullopt;
  std::sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) { return a.server < b.server; });
  return slices;
}

void PlacementState::Take(const Slices& slices) {
  failed_.clear();
  for (const Slice& s : slices) {
    const int old_free = available(s.server).gpus;
    used_[s.server] += s.resources;
    free_gpus_ -= s.resources.gpus;
    Reindex(s.server, old_free);
    if (room_) room_->Set(s.server, available(s.server));
  }
}

void PlacementState::Give(const Slices& slices) {
  failed_.clear();
  for (const Slice& s : slices) {
    const int old_free = available(s.server).gpus;
    used_[s.server] -= s.resources;
    free_gpus_ += s.resources.gpus;
    Reindex(s.server, old_free);
    if (room_) room_->Set(s.server, available(s.server));
  }
}

void PlacementState::Commit(Assignment assignment) {
  Take(assignment.slices);
  const auto place = static_cast<Place>(order_.size());
  for (const Slice& s : assignment.slices) places_on_server_[s.server].push_back(place);
  order_.push_back(std::move(assignment));
}

Assignment PlacementState::Release(JobId job) {
  const Assignment* found = Find(job);
  assert(found != nullptr);
  const auto place = static_cast<Place>(found - order_.data());
  Assignment a = std::move(order_[place]);
  Give(a.slices);
  order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(place));
  for (PlaceList& list : places_on_server_) {
    list.erase(std::remove(list.begin(), list.end(), place), list.end());
    for (Place& p : list) p -= p > place ? 1 : 0;
  }
  index_.clear();
  return a;
}

void PlacementState::Replace(JobId job, Slices slices, double speedup, bool at_ideal) {
  const Assignment* found = Find(job);
  assert(found != nullptr);
  ReplaceAt(static_cast<Place>(found - order_.data()), std::move(slices), speedup, at_ideal);
}

void PlacementState::ReplaceAt(Place place, Slices slices, double speedup, bool at_ideal) {
  Assignment& a = order_[place];
  Give(a.slices);
  Take(slices);
  a.slices = std::move(slices);
  a.speedup = speedup;
  a.at_ideal = at_ideal;
}

void PlacementState::IndexPlaced() const {
  // A mechanism that asks once asks often (OPT, for every job it placed):
  // room for every job the round can place, not a regrowth or two.
  if (index_.empty()) index_.reserve(order_.capacity());
  for (size_t place = index_.size(); place < order_.size(); ++place) {
    index_[order_[place].job] = static_cast<Place>(place);
  }
}

const Assignment* PlacementState::Find(JobId job) const {
  if (index_.size() < order_.size()) IndexPlaced();
  auto it = index_.find(job);
  return it == index_.end() ? nullptr : &order_[it->second];
}

std::vector<JobId> PlacementState::placed_jobs() const {
  std::vector<JobId> ids;
  ids.reserve(order_.size());
  for (const Assignment& a : order_) ids.push_back(a.job);
  return ids;
}

Plan PlacementState::TakePlan() {
  Plan plan;
  plan.assignments = std::move(order_);
  plan.unplaced_after_revert = std::move(unplaced_);
  plan.solver = solver_;
  solver_ = SolverStats{};
  unplaced_.clear();
  order_.clear();
  index_.clear();
  return plan;
}

}  // namespace synergy
