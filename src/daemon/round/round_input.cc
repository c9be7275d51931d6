#include "daemon/round/round_input.h"

#include <algorithm>
#include <cmath>
#include <charconv>

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

RoundCluster ClusterOf(const std::vector<const v1::Node*>& nodes,
                       const std::map<std::string, const v1::NodeResources*>& whole) {
  std::vector<const v1::Node*> sorted = nodes;
  std::sort(sorted.begin(), sorted.end(),
            [](const v1::Node* a, const v1::Node* b) { return a->name() < b->name(); });
  RoundCluster out;
  std::vector<ServerSpec> servers;
  for (const v1::Node* n : sorted) {
    servers.push_back(ServerSpec{n->name(), Resources{n->capacity().gpu_ids_size(),
                                                      static_cast<double>(n->capacity().cpu_ids_size()),
                                                      n->capacity().mem_gb(), 0}});
    servers.back().gpu_type = n->capacity().gpu_type();
    auto w = whole.find(n->name());
    if (w != whole.end() && w->second->gpu_ids_size() > 0) {
      const double g = w->second->gpu_ids_size();
      servers.back().share_per_gpu = Resources{1, w->second->cpu_ids_size() / g, w->second->mem_gb() / g, 0};
    }
    out.node_names.push_back(n->name());
  }
  out.cluster = Cluster(std::move(servers));
  return out;
}

v1::NodeResources IdsLeft(const v1::NodeResources& capacity, const std::set<int>& gpus, const std::set<int>& cpus) {
  v1::NodeResources left;
  left.set_gpu_type(capacity.gpu_type());
  for (int g : capacity.gpu_ids()) if (!gpus.count(g)) left.add_gpu_ids(g);
  for (int c : capacity.cpu_ids()) if (!cpus.count(c)) left.add_cpu_ids(c);
  left.set_mem_gb(capacity.mem_gb());
  return left;
}

namespace {
// `ids` less up to `count` of them, the highest first, none of `kept`.
std::vector<int> DropHighest(const google::protobuf::RepeatedField<int32_t>& ids, int count, const std::set<int>& kept) {
  std::vector<int> out(ids.begin(), ids.end());
  for (int i = static_cast<int>(out.size()) - 1; i >= 0 && count > 0; --i) {
    if (kept.count(out[i])) continue;
    out.erase(out.begin() + i);
    --count;
  }
  return out;
}
}  // namespace

v1::NodeResources WithoutForeign(const v1::NodeResources& ids, const v1::ForeignUse& foreign,
                                 const std::set<int>& kept_gpus, const std::set<int>& kept_cpus) {
  if (foreign.gpus() <= 0 && foreign.cpus() <= 0 && foreign.mem_gb() <= 0) return ids;
  v1::NodeResources left = ids;
  left.clear_gpu_ids();
  left.clear_cpu_ids();
  for (int g : DropHighest(ids.gpu_ids(), foreign.gpus(), kept_gpus)) left.add_gpu_ids(g);
  for (int c : DropHighest(ids.cpu_ids(), foreign.cpus(), kept_cpus)) left.add_cpu_ids(c);
  left.set_mem_gb(std::max(0.0, ids.mem_gb() - std::max(0.0, foreign.mem_gb())));
  return left;
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

int64_t ServiceInTenthsOfARound(int64_t service_ms, int64_t round_ms) {
  const int64_t tenth = round_ms / 10;
  if (tenth <= 0 || service_ms <= 0) return std::max<int64_t>(0, service_ms);
  return (service_ms + tenth / 2) / tenth * tenth;
}

RoundJob RoundJobOf(const v1::Job& job, int64_t attained_service_ms, bool running) {
  RoundJob r;
  r.id = job.id();
  r.gpus = job.spec().gpus();
  r.uses_agent = job.spec().uses_agent();
  r.model = job.spec().model();
  r.submitted_unix_ms = job.submitted_unix_ms();
  r.iterations = job.spec().iterations();
  r.iterations_done = static_cast<double>(job.iterations_done());
  r.throughput = job.throughput();
  r.attained_service_ms = attained_service_ms;
  r.last_lease_end_unix_ms = job.last_lease_end_unix_ms();
  r.starvation_priority = job.starvation_priority();
  r.priority_class = job.spec().priority();
  r.holds_lease = job.has_lease();
  r.lease_speedup = job.lease().speedup();
  r.lease_at_ideal = job.lease().at_ideal();
  if (job.has_lease() && job.lease().slices_size() > 0) r.lease_node = job.lease().slices(0).node();
  r.lease_service_weight = job.lease().service_weight();
  r.running = running;
  if (job.spec().uses_agent()) {
    // What the job measured itself wins over what its spec brought.
    const auto& points =
        job.has_measured_profile() ? job.measured_profile().points() : job.spec().profile_points();
    for (const v1::ProfilePoint& p : points) {
      r.measured.push_back(MeasuredPoint{p.cpus(), p.mem_gb(), p.throughput()});
    }
    r.measured_gpu_type =
        job.has_measured_profile() ? job.measured_profile().gpu_type() : job.spec().profile_gpu_type();
  }
  return r;
}

JobView ViewOf(const RoundJob& job, const ModelZoo& zoo, const Cluster& cluster, std::deque<ModelSpec>& measured) {
  JobView v;
  v.id = NumericJobId(job.id);
  v.gpus = job.gpus;
  v.arrival_s = job.submitted_unix_ms / 1000.0;
  v.attained_service_s = job.attained_service_ms / 1000.0;
  v.priority = job.starvation_priority;
  v.last_execution_end_s = job.last_lease_end_unix_ms > 0 ? job.last_lease_end_unix_ms / 1000.0 : -1;
  v.priority_class = job.priority_class;
  v.tenant = job.tenant;
  v.user = job.user;
  v.runs_without_checkpoint = job.holds_lease && job.running && !job.uses_agent;
  v.total_iterations = static_cast<double>(job.iterations);
  v.remaining_iterations = std::max(0.0, static_cast<double>(job.iterations) - job.iterations_done);
  const ModelSpec* known = nullptr;
  if (auto m = ModelFromMeasured(job.measured, job.gpus, cluster)) {
    measured.push_back(std::move(*m));
    known = &measured.back();
  } else if (job.uses_agent && !job.model.empty() && cluster.num_servers() > 0) {
    const int model = zoo.Find(job.model);
    if (model >= 0) known = &zoo.model(model);
  }
  // Without a model, remaining time is measured in iterations at the
  // observed rate when there is one.
  if (known == nullptr) v.iteration_time_s = job.throughput > 0 ? 1.0 / job.throughput : 1.0;
  SetModelFields(v, known, cluster);
  const bool held = job.holds_lease && job.lease_speedup > 0;
  v.last_round_speedup =
      CarriedSpeedup(v.ideal_speedup, held ? job.lease_speedup : 1.0, held ? job.lease_at_ideal : true);
  // A lease on another GPU type (its nodes sit this round out): its speedup
  // in the base type's units.
  if (held && job.lease_service_weight > 0 && job.lease_service_weight != 1) {
    v.last_round_speedup = job.lease_speedup * job.lease_service_weight;
  }
  return v;
}

}  // namespace synergy::daemon
