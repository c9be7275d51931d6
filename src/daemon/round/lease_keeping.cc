#include "daemon/round/lease_keeping.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "daemon/round/round_input.h"
#include "daemon/round/typed_views.h"

namespace synergy::daemon {

double ServiceWeightOf(const v1::Lease& lease) {
  const double stored = lease.service_weight();
  return std::isfinite(stored) && stored > 0 ? std::clamp(stored, kMinServiceWeight, kMaxServiceWeight) : 1.0;
}

bool Resizable(const v1::Lease& lease) { return lease.resizable() && lease.slices_size() == 1 && !lease.profiling(); }

LeaseDecision DecideLease(const v1::Lease& held, const Assignment* planned, bool checkpoints,
                          const std::vector<std::string>& node_names, double restart_gain, double planned_weight) {
  HeldAllocation allocation;
  allocation.speedup = held.speedup();
  allocation.weight = ServiceWeightOf(held);
  allocation.checkpoints = checkpoints;
  allocation.resizable = Resizable(held);
  for (const v1::LeaseSlice& s : held.slices()) {
    auto node = std::find(node_names.begin(), node_names.end(), s.node());
    if (node == node_names.end() && planned != nullptr) {
      return {LeaseFate::kEnd, absl::StrFormat("node %s left the round", s.node())};
    }
    allocation.slices.push_back(Slice{node == node_names.end() ? -1 : static_cast<int>(node - node_names.begin()),
                                      Resources{s.gpu_ids_size(), static_cast<double>(s.cpu_ids_size()),
                                                s.mem_gb(), 0}});
  }
  if (planned == nullptr) return synergy::DecideLease(allocation, nullptr, restart_gain);
  // The plan as a grant would give it: whole CPU ids.
  Assignment granted = *planned;
  for (Slice& s : granted.slices) s.resources.cpus = WholeCpus(s.resources.cpus);
  return synergy::DecideLease(allocation, &granted, restart_gain,
                              planned_weight > 0 ? planned_weight : allocation.weight);
}

}  // namespace synergy::daemon
