#include "daemon/round_input.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/str_format.h"

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

JobView ViewOf(const v1::Job& job, const ModelZoo& zoo, const Cluster& cluster, double now_s,
               int priority) {
  JobView v;
  v.id = NumericJobId(job.id());
  v.gpus = job.spec().gpus();
  v.arrival_s = job.submitted_unix_ms() / 1000.0;
  v.attained_service_s = job.attained_service_ms() / 1000.0;
  v.priority = priority;
  v.total_iterations = static_cast<double>(job.spec().iterations());
  v.remaining_iterations =
      std::max(0.0, static_cast<double>(job.spec().iterations() - job.iterations_done()));
  const int model = job.spec().uses_agent() && !job.spec().model().empty() && cluster.num_servers() > 0
                        ? zoo.Find(job.spec().model())
                        : -1;
  if (model >= 0) {
    const ModelSpec& m = zoo.model(model);
    const JobDemand d = IdealDemandFor(m, v.gpus, cluster);
    v.ideal_demand = d.ideal;
    v.ideal_speedup = d.speedup;
    v.iteration_time_s = m.iteration_time_s;
    v.placement_penalty = m.placement_penalty;
    v.profile = &m.profile;
  } else {
    v.ideal_demand = cluster.num_servers() > 0 ? cluster.ProportionalShare(v.gpus) : Resources{v.gpus, 0, 0, 0};
    v.ideal_speedup = 1.0;
    // Without a model, remaining time is measured in iterations at the
    // observed rate when there is one.
    v.iteration_time_s = job.throughput() > 0 ? 1.0 / job.throughput() : 1.0;
  }
  v.last_round_speedup = job.has_lease() && job.lease().speedup() > 0 ? job.lease().speedup() : v.ideal_speedup;
  (void)now_s;
  return v;
}

}  // namespace synergy::daemon
