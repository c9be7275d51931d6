#include "daemon/lease_keeping.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_format.h"
#include "daemon/round_input.h"

namespace synergy::daemon {
namespace {

constexpr double kEpsilon = 1e-6;

// node -> GPUs, for a lease and for a plan.
std::map<std::string, int> GpusByNode(const v1::Lease& lease) {
  std::map<std::string, int> out;
  for (const v1::LeaseSlice& s : lease.slices()) out[s.node()] += s.gpu_ids_size();
  return out;
}
std::map<std::string, int> GpusByNode(const Assignment& a, const std::vector<std::string>& node_names) {
  std::map<std::string, int> out;
  for (const Slice& s : a.slices) out[node_names[s.server]] += s.resources.gpus;
  return out;
}

// Whether the plan gives every slice at least what it holds.
bool PlanGrows(const v1::Lease& held, const Assignment& planned, const std::vector<std::string>& node_names) {
  for (const Slice& s : planned.slices) {
    for (const v1::LeaseSlice& h : held.slices()) {
      if (h.node() != node_names[s.server]) continue;
      if (WholeCpus(s.resources.cpus) < h.cpu_ids_size() || s.resources.mem_gb < h.mem_gb() - kEpsilon) return false;
    }
  }
  return true;
}

}  // namespace

bool Resizable(const v1::Lease& lease) { return lease.resizable() && lease.slices_size() == 1 && !lease.profiling(); }

LeaseDecision DecideLease(const v1::Lease& held, const Assignment* planned, bool checkpoints,
                          const std::vector<std::string>& node_names, double restart_gain) {
  if (planned == nullptr) return {LeaseFate::kEnd, "not in this round's plan"};
  if (LeaseHolds(held, *planned, node_names)) return {LeaseFate::kKeep, ""};
  const std::map<std::string, int> held_gpus = GpusByNode(held);
  for (const auto& [node, gpus] : held_gpus) {
    if (std::find(node_names.begin(), node_names.end(), node) == node_names.end()) {
      return {LeaseFate::kEnd, absl::StrFormat("node %s left the round", node)};
    }
  }
  if (held_gpus != GpusByNode(*planned, node_names)) {
    if (checkpoints && planned->num_servers() < static_cast<int>(held_gpus.size())) {
      return {LeaseFate::kEnd, "the plan consolidates it onto fewer nodes"};
    }
    return {LeaseFate::kKeepAsHeld, "the plan would move it; it keeps its place"};
  }
  if (checkpoints && Resizable(held)) {
    return {LeaseFate::kResize, absl::StrFormat("resized in place: speedup %.2f -> %.2f", held.speedup(),
                                                planned->speedup)};
  }
  if (!checkpoints) {
    return {LeaseFate::kKeepAsHeld, "the plan re-sizes it in place; it cannot checkpoint, so it keeps what it holds"};
  }
  if (!PlanGrows(held, *planned, node_names)) return {LeaseFate::kEnd, "the plan gives part of its allocation to others"};
  if (planned->speedup >= held.speedup() * (1 + restart_gain) - kEpsilon) {
    return {LeaseFate::kEnd, absl::StrFormat("a larger allocation: speedup %.2f -> %.2f", held.speedup(),
                                             planned->speedup)};
  }
  return {LeaseFate::kKeepAsHeld,
          absl::StrFormat("the plan grows it in place by less than restart_gain (speedup %.2f -> %.2f)",
                          held.speedup(), planned->speedup)};
}

}  // namespace synergy::daemon
