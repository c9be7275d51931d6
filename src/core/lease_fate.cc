#include "synergy/lease_fate.h"

#include <cmath>
#include <map>

#include "absl/strings/str_format.h"

namespace synergy {
namespace {

constexpr double kEpsilon = 1e-6;

bool SameSlice(const Slice& a, const Slice& b) {
  return a.server == b.server && a.resources.gpus == b.resources.gpus &&
         std::abs(a.resources.cpus - b.resources.cpus) <= kEpsilon &&
         std::abs(a.resources.mem_gb - b.resources.mem_gb) <= kEpsilon;
}

bool Holds(const HeldAllocation& held, const Assignment& planned) {
  if (held.slices.size() != planned.slices.size()) return false;
  std::vector<bool> matched(held.slices.size(), false);
  for (const Slice& s : planned.slices) {
    bool found = false;
    for (size_t i = 0; i < held.slices.size() && !found; ++i) {
      if (!matched[i] && SameSlice(held.slices[i], s)) matched[i] = found = true;
    }
    if (!found) return false;
  }
  return true;
}

std::map<int, int> GpusByServer(const Slices& slices) {
  std::map<int, int> out;
  for (const Slice& s : slices) out[s.server] += s.resources.gpus;
  return out;
}

// Whether the plan gives every slice at least what it holds.
bool PlanGrows(const HeldAllocation& held, const Assignment& planned) {
  for (const Slice& s : planned.slices) {
    for (const Slice& h : held.slices) {
      if (h.server != s.server) continue;
      if (s.resources.cpus < h.resources.cpus - kEpsilon || s.resources.mem_gb < h.resources.mem_gb - kEpsilon) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

LeaseDecision DecideLease(const HeldAllocation& held, const Assignment* planned, double restart_gain,
                          double planned_weight) {
  if (planned == nullptr) return {LeaseFate::kEnd, "not in this round's plan"};
  if (Holds(held, *planned)) return {LeaseFate::kKeep, ""};
  const std::map<int, int> held_gpus = GpusByServer(held.slices);
  if (held_gpus.count(-1)) return {LeaseFate::kEnd, "a server of it left the round"};
  if (held_gpus != GpusByServer(planned->slices)) {
    if (held.checkpoints && planned->num_servers() < static_cast<int>(held_gpus.size())) {
      return {LeaseFate::kEnd, "the plan consolidates it onto fewer nodes"};
    }
    const double held_rate = held.speedup * held.weight;
    const double planned_rate = planned->speedup * planned_weight;
    if (held.checkpoints && planned_weight != held.weight &&
        planned_rate >= held_rate * (1 + restart_gain) - kEpsilon) {
      return {LeaseFate::kEnd, absl::StrFormat("a faster GPU type: rate %.3f -> %.3f of the base type's share",
                                               held_rate, planned_rate)};
    }
    return {LeaseFate::kKeepAsHeld, "the plan would move it; it keeps its place"};
  }
  if (held.checkpoints && held.resizable) {
    return {LeaseFate::kResize, absl::StrFormat("resized in place: speedup %.2f -> %.2f", held.speedup,
                                                planned->speedup)};
  }
  if (!held.checkpoints) {
    return {LeaseFate::kKeepAsHeld, "the plan re-sizes it in place; it cannot checkpoint, so it keeps what it holds"};
  }
  if (!PlanGrows(held, *planned)) return {LeaseFate::kEnd, "the plan gives part of its allocation to others"};
  if (planned->speedup >= held.speedup * (1 + restart_gain) - kEpsilon) {
    return {LeaseFate::kEnd, absl::StrFormat("a larger allocation: speedup %.2f -> %.2f", held.speedup,
                                             planned->speedup)};
  }
  return {LeaseFate::kKeepAsHeld,
          absl::StrFormat("the plan grows it in place by less than restart_gain (speedup %.2f -> %.2f)",
                          held.speedup, planned->speedup)};
}

}  // namespace synergy
