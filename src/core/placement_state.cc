#include "synergy/placement_state.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <queue>
#include <utility>

namespace synergy {

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

PlacementState::PlacementState(const Cluster& cluster, GpuPlacement placement)
    : cluster_(&cluster),
      placement_(placement),
      used_(cluster.num_servers()),
      free_gpus_(cluster.total().gpus),
      jobs_on_server_(cluster.num_servers()) {}

namespace {
Resources PerGpuShare(const Resources& demand) {
  // The reference's gpu_normalized_vector.
  const double g = demand.gpus;
  return Resources{1, demand.cpus / g, demand.mem_gb / g, demand.storage_mbps / g};
}
}  // namespace

std::optional<std::vector<Slice>> PlacementState::Fit(const Resources& demand) const {
  if (demand.gpus > free_gpus_ || demand.gpus <= 0) return std::nullopt;
  for (const Resources& f : failed_) {
    if (f.gpus == demand.gpus && f.FitsIn(demand)) return std::nullopt;
  }
  auto slices =
      placement_ == GpuPlacement::kConsolidate ? FitConsolidated(demand) : FitFirst(demand);
  if (!slices) failed_.push_back(demand);
  return slices;
}

std::optional<std::vector<Slice>> PlacementState::FitFirst(const Resources& demand) const {
  const Resources per_gpu = PerGpuShare(demand);
  std::vector<Slice> slices;
  int found = 0;
  for (int s = 0; s < cluster_->num_servers() && found < demand.gpus; ++s) {
    const Resources left = available(s);
    Resources held;
    int taken = 0;
    while (taken < left.gpus && found + taken < demand.gpus && per_gpu.FitsIn(left - held)) {
      held += per_gpu;
      ++taken;
    }
    if (taken > 0) {
      held.gpus = taken;
      slices.push_back(Slice{s, held});
      found += taken;
    }
  }
  if (found < demand.gpus) return std::nullopt;
  return slices;
}

std::optional<std::vector<Slice>> PlacementState::FitConsolidated(const Resources& demand) const {
  const int gpus = demand.gpus;
  const int num_servers = cluster_->num_servers();
  if (gpus > 1) {
    int best = -1;
    int best_free = 0;
    for (int s = 0; s < num_servers; ++s) {
      const Resources left = available(s);
      if (left.gpus <= 0 || !demand.FitsIn(left)) continue;
      if (best < 0 || left.gpus < best_free) {
        best = s;
        best_free = left.gpus;
      }
    }
    if (best >= 0) return std::vector<Slice>{Slice{best, demand}};
  }
  const Resources per_gpu = PerGpuShare(demand);
  using Entry = std::pair<int, int>;  // (free GPUs, server): smallest first
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> servers;
  for (int s = 0; s < num_servers; ++s) {
    const int free = available(s).gpus;
    if (free > 0) servers.emplace(free, s);
  }
  // Held resources are added GPU by GPU, so a slice is per_gpu summed k
  // times (not multiplied): the same doubles as the reference.
  std::vector<std::pair<int, Resources>> held;  // (server, held there)
  int found = 0;
  while (found < gpus && !servers.empty()) {
    const auto [free, s] = servers.top();
    servers.pop();
    auto it = std::find_if(held.begin(), held.end(), [s = s](const auto& h) { return h.first == s; });
    const Resources already = it == held.end() ? Resources{} : it->second;
    if (!per_gpu.FitsIn(available(s) - already)) continue;
    if (it == held.end()) {
      held.emplace_back(s, per_gpu);
    } else {
      it->second += per_gpu;
    }
    ++found;
    if (free > 1) servers.emplace(free - 1, s);
  }
  if (found < gpus) return std::nullopt;
  std::sort(held.begin(), held.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Slice> slices;
  slices.reserve(held.size());
  for (const auto& [s, r] : held) slices.push_back(Slice{s, r});
  return slices;
}

void PlacementState::Take(const std::vector<Slice>& slices) {
  failed_.clear();
  for (const Slice& s : slices) {
    used_[s.server] += s.resources;
    free_gpus_ -= s.resources.gpus;
  }
}

void PlacementState::Give(const std::vector<Slice>& slices) {
  failed_.clear();
  for (const Slice& s : slices) {
    used_[s.server] -= s.resources;
    free_gpus_ += s.resources.gpus;
  }
}

void PlacementState::Commit(Assignment assignment) {
  Take(assignment.slices);
  for (const Slice& s : assignment.slices) jobs_on_server_[s.server].push_back(assignment.job);
  index_[assignment.job] = order_.size();
  order_.push_back(std::move(assignment));
}

Assignment PlacementState::Release(JobId job) {
  auto it = index_.find(job);
  assert(it != index_.end());
  size_t pos = it->second;
  Assignment a = std::move(order_[pos]);
  Give(a.slices);
  for (const Slice& s : a.slices) {
    auto& list = jobs_on_server_[s.server];
    list.erase(std::remove(list.begin(), list.end(), job), list.end());
  }
  order_.erase(order_.begin() + static_cast<std::ptrdiff_t>(pos));
  index_.erase(it);
  for (size_t i = pos; i < order_.size(); ++i) index_[order_[i].job] = i;
  return a;
}

void PlacementState::Replace(JobId job, std::vector<Slice> slices, double speedup,
                             bool at_ideal) {
  Assignment& a = order_[index_.at(job)];
  Give(a.slices);
  Take(slices);
  a.slices = std::move(slices);
  a.speedup = speedup;
  a.at_ideal = at_ideal;
}

const Assignment* PlacementState::Find(JobId job) const {
  auto it = index_.find(job);
  return it == index_.end() ? nullptr : &order_[it->second];
}

Plan PlacementState::TakePlan() {
  Plan plan;
  plan.assignments = std::move(order_);
  plan.unplaced_after_revert = std::move(unplaced_);
  unplaced_.clear();
  order_.clear();
  index_.clear();
  return plan;
}

}  // namespace synergy
