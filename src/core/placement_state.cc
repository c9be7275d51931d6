#include "synergy/placement_state.h"

#include <algorithm>
#include <cassert>

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

PlacementState::PlacementState(const Cluster& cluster)
    : cluster_(&cluster),
      used_(cluster.num_servers()),
      free_gpus_(cluster.total().gpus),
      jobs_on_server_(cluster.num_servers()) {}

std::optional<std::vector<Slice>> PlacementState::FirstFit(const Resources& per_gpu,
                                                           int gpus) const {
  // The reference holds per_gpu on a server for each GPU it takes there and
  // checks the next GPU against what is left; a server's slice is therefore
  // per_gpu added k times (not multiplied), which we repeat exactly.
  std::vector<Slice> slices;
  int found = 0;
  const auto& servers = cluster_->servers();
  for (int s = 0; s < static_cast<int>(servers.size()) && found < gpus; ++s) {
    Resources left = servers[s].capacity - used_[s];
    if (left.gpus <= 0) continue;
    Resources held;
    int taken = 0;
    while (found + taken < gpus && per_gpu.FitsIn(left - held)) {
      held += per_gpu;
      ++taken;
    }
    if (taken > 0) {
      held.gpus = taken;  // per_gpu.gpus is 1; keep the count exact regardless
      slices.push_back(Slice{s, held});
      found += taken;
    }
  }
  if (found < gpus) return std::nullopt;
  return slices;
}

void PlacementState::Take(const std::vector<Slice>& slices) {
  for (const Slice& s : slices) {
    used_[s.server] += s.resources;
    free_gpus_ -= s.resources.gpus;
  }
}

void PlacementState::Give(const std::vector<Slice>& slices) {
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
