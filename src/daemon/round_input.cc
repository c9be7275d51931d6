#include "daemon/round_input.h"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <set>

#include "absl/strings/str_format.h"
#include "synergy/job_view_rules.h"

namespace synergy::daemon {

JobId NumericJobId(const std::string& id) {
  if (id.size() < 3 || id.rfind("j-", 0) != 0) return -1;
  JobId n = -1;
  auto [p, ec] = std::from_chars(id.data() + 2, id.data() + id.size(), n);
  if (ec != std::errc() || p != id.data() + id.size()) return -1;
  return n;
}

std::string JobIdString(JobId id) { return absl::StrFormat("j-%06d", id); }

RoundCluster ClusterOf(const std::vector<const v1::Node*>& nodes) {
  std::vector<const v1::Node*> sorted = nodes;
  std::sort(sorted.begin(), sorted.end(),
            [](const v1::Node* a, const v1::Node* b) { return a->name() < b->name(); });
  RoundCluster out;
  std::vector<ServerSpec> servers;
  for (const v1::Node* n : sorted) {
    servers.push_back(ServerSpec{n->name(), Resources{n->capacity().gpu_ids_size(),
                                                      static_cast<double>(n->capacity().cpu_ids_size()),
                                                      n->capacity().mem_gb(), 0}});
    out.node_names.push_back(n->name());
  }
  out.cluster = Cluster(std::move(servers));
  return out;
}

std::optional<ModelSpec> ModelFromMeasured(const v1::MeasuredProfile& measured, int gpus,
                                           const Cluster& cluster, double knee_tolerance) {
  if (gpus <= 0 || measured.points_size() == 0 || cluster.num_servers() == 0) return std::nullopt;
  std::set<double> cpu_set, mem_set;
  for (const v1::ProfilePoint& p : measured.points()) {
    cpu_set.insert(p.cpus() / gpus);
    mem_set.insert(p.mem_gb() / gpus);
  }
  std::vector<double> cpus(cpu_set.begin(), cpu_set.end()), mems(mem_set.begin(), mem_set.end());
  std::vector<std::vector<double>> raw(cpus.size(), std::vector<double>(mems.size(), 0.0));
  for (const v1::ProfilePoint& p : measured.points()) {
    const size_t c = std::lower_bound(cpus.begin(), cpus.end(), p.cpus() / gpus) - cpus.begin();
    const size_t m = std::lower_bound(mems.begin(), mems.end(), p.mem_gb() / gpus) - mems.begin();
    raw[c][m] = p.throughput();
  }
  const Resources& share = cluster.share_per_gpu();
  const SensitivityProfile unnormalised(cpus, mems, raw, Resources{}, 1.0);
  const double at_share = unnormalised.ThroughputAt(share.cpus, share.mem_gb);
  if (!(at_share > 0)) return std::nullopt;
  double best = 0;
  for (const auto& row : raw) {
    for (double t : row) best = std::max(best, t);
  }
  // Measured throughputs are noisy: the ideal demand is the fewest cores
  // (then GB) within the knee tolerance of the best, not the exact best,
  // which a flat curve reaches at a random point.
  Resources ideal{1, cpus.back(), mems.back(), share.storage_mbps};
  double at_ideal = best;
  bool found = false;
  for (size_t c = 0; c < cpus.size() && !found; ++c) {
    for (size_t m = 0; m < mems.size() && !found; ++m) {
      if (raw[c][m] >= best * (1 - knee_tolerance) - 1e-12) {
        ideal = Resources{1, cpus[c], mems[m], share.storage_mbps};
        at_ideal = raw[c][m];
        found = true;
      }
    }
  }
  std::vector<std::vector<double>> normalised = raw;
  for (auto& row : normalised) {
    for (double& t : row) t /= at_share;
  }
  ModelSpec spec;
  spec.name = "measured";
  // Seconds per iteration of the whole job at its proportional share.
  spec.iteration_time_s = 1.0 / at_share;
  spec.profile = SensitivityProfile(cpus, mems, normalised, ideal, at_ideal / at_share);
  return spec;
}

int WholeCpus(double cpus) { return std::max(1, static_cast<int>(std::floor(cpus + 1e-9))); }

bool SliceHolds(const v1::LeaseSlice& held, const std::string& node, const Slice& planned) {
  return held.node() == node && held.gpu_ids_size() == planned.resources.gpus &&
         held.cpu_ids_size() == WholeCpus(planned.resources.cpus) &&
         std::abs(held.mem_gb() - planned.resources.mem_gb) <= 1e-6;
}

bool LeaseHolds(const v1::Lease& lease, const Assignment& planned, const std::vector<std::string>& node_names) {
  if (lease.slices_size() != planned.num_servers()) return false;
  std::vector<bool> matched(lease.slices_size(), false);
  for (const Slice& s : planned.slices) {
    bool found = false;
    for (int i = 0; i < lease.slices_size() && !found; ++i) {
      if (!matched[i] && SliceHolds(lease.slices(i), node_names[s.server], s)) matched[i] = found = true;
    }
    if (!found) return false;
  }
  return true;
}

JobView ViewOf(const v1::Job& job, const ModelZoo& zoo, const Cluster& cluster, const ModelSpec* measured) {
  JobView v;
  v.id = NumericJobId(job.id());
  v.gpus = job.spec().gpus();
  v.arrival_s = job.submitted_unix_ms() / 1000.0;
  v.attained_service_s = job.attained_service_ms() / 1000.0;
  v.priority = job.starvation_priority();
  v.last_execution_end_s = job.last_lease_end_unix_ms() > 0 ? job.last_lease_end_unix_ms() / 1000.0 : -1;
  v.priority_class = job.spec().priority();
  v.total_iterations = static_cast<double>(job.spec().iterations());
  v.remaining_iterations =
      std::max(0.0, static_cast<double>(job.spec().iterations() - job.iterations_done()));
  const int model = job.spec().uses_agent() && !job.spec().model().empty() && cluster.num_servers() > 0
                        ? zoo.Find(job.spec().model())
                        : -1;
  const ModelSpec* known = measured != nullptr ? measured : model >= 0 ? &zoo.model(model) : nullptr;
  // Without a model, remaining time is measured in iterations at the
  // observed rate when there is one.
  if (known == nullptr) v.iteration_time_s = job.throughput() > 0 ? 1.0 / job.throughput() : 1.0;
  SetModelFields(v, known, cluster);
  const bool held = job.has_lease() && job.lease().speedup() > 0;
  v.last_round_speedup = CarriedSpeedup(v.ideal_speedup, held ? job.lease().speedup() : 1.0,
                                        held ? job.lease().at_ideal() : true);
  return v;
}

}  // namespace synergy::daemon
