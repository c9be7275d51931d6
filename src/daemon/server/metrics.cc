#include "daemon/server/metrics.h"

#include "service/metrics_text.h"
#include "service/names.h"
#include "synergy/version.h"

namespace synergy::daemon {

namespace {

constexpr double kBytesPerGb = 1024.0 * 1024.0 * 1024.0;  // the node reads MemTotal in GiB

}  // namespace

namespace {

// Per node: what it offers, what leases hold, how long since it was heard
// from. A node's name is its label (names are [A-Za-z0-9._-]).
void NodeMetrics(const std::vector<v1::Node>& nodes, int64_t now_ms, service::MetricsText& m) {
  int alive = 0, drained = 0, leaving = 0, lost = 0;
  for (const v1::Node& n : nodes) {
    if (!n.alive()) {
      ++lost;
    } else if (n.leaving()) {
      ++leaving;
    } else if (n.drained()) {
      ++drained;
    } else {
      ++alive;
    }
  }
  m.Family("synergy_nodes", "gauge", "Nodes by condition: ready, drained, leaving, or lost (silent past the heartbeat timeout).");
  m.Sample("synergy_nodes", {{"condition", "ready"}}, alive);
  m.Sample("synergy_nodes", {{"condition", "drained"}}, drained);
  m.Sample("synergy_nodes", {{"condition", "leaving"}}, leaving);
  m.Sample("synergy_nodes", {{"condition", "lost"}}, lost);
  struct PerNode {
    const char* name;
    const char* help;
    double (*value)(const v1::Node&);
  };
  const PerNode per_node[] = {
      {"synergy_node_gpus", "The node's GPUs.", [](const v1::Node& n) { return double(n.capacity().gpu_ids_size()); }},
      {"synergy_node_gpus_allocated", "The node's GPUs held by leases.",
       [](const v1::Node& n) { return double(n.allocated().gpu_ids_size()); }},
      {"synergy_node_cpus", "The node's CPUs.", [](const v1::Node& n) { return double(n.capacity().cpu_ids_size()); }},
      {"synergy_node_cpus_allocated", "The node's CPUs held by leases.",
       [](const v1::Node& n) { return double(n.allocated().cpu_ids_size()); }},
      {"synergy_node_memory_bytes", "The node's memory.",
       [](const v1::Node& n) { return n.capacity().mem_gb() * kBytesPerGb; }},
      {"synergy_node_memory_allocated_bytes", "The node's memory held by leases.",
       [](const v1::Node& n) { return n.allocated().mem_gb() * kBytesPerGb; }},
  };
  for (const PerNode& p : per_node) {
    m.Family(p.name, "gauge", p.help);
    for (const v1::Node& n : nodes) m.Sample(p.name, {{"node", n.name()}}, p.value(n));
  }
  m.Family("synergy_node_heartbeat_age_seconds", "gauge", "Time since the node's last heartbeat.");
  for (const v1::Node& n : nodes) {
    m.Sample("synergy_node_heartbeat_age_seconds", {{"node", n.name()}},
             n.last_heartbeat_unix_ms() > 0 ? std::max<int64_t>(0, now_ms - n.last_heartbeat_unix_ms()) / 1000.0 : 0);
  }
}

// Per tenant ("(none)" for jobs of none): GPUs held, its quota, jobs
// waiting, and GPU-seconds held since start.
void TenantMetrics(const v1::ClusterState& c, service::MetricsText& m) {
  auto label = [](const v1::TenantState& t) { return t.name().empty() ? std::string("(none)") : t.name(); };
  m.Family("synergy_tenant_gpus_allocated", "gauge", "GPUs held by the tenant's jobs' leases.");
  for (const v1::TenantState& t : c.tenants()) {
    m.Sample("synergy_tenant_gpus_allocated", {{"tenant", label(t)}}, t.allocated_gpus());
  }
  m.Family("synergy_tenant_gpu_quota", "gauge", "The tenant's GPU quota (auth.tenants; 0: none).");
  for (const v1::TenantState& t : c.tenants()) {
    m.Sample("synergy_tenant_gpu_quota", {{"tenant", label(t)}}, t.quota_gpus());
  }
  m.Family("synergy_tenant_jobs_waiting", "gauge", "The tenant's live jobs holding no lease.");
  for (const v1::TenantState& t : c.tenants()) {
    m.Sample("synergy_tenant_jobs_waiting", {{"tenant", label(t)}}, t.waiting_jobs());
  }
  m.Family("synergy_tenant_gpu_seconds_total", "counter", "GPU-seconds the tenant's jobs held since synergyd started.");
  for (const v1::TenantState& t : c.tenants()) {
    m.Sample("synergy_tenant_gpu_seconds_total", {{"tenant", label(t)}}, t.gpu_seconds());
  }
}

// Rounds, leases, jobs and the store: the daemon's counters.
void RoundAndLeaseMetrics(const DaemonState& state, service::MetricsText& m) {
  const DaemonCounters& k = state.counters();
  m.HistogramFamily("synergy_round_decision_seconds",
                    "Time to decide a round (planning, without the lock) and apply it.", k.round_decision_s);
  m.Gauge("synergy_round_last_decision_seconds", "The last round's decision time.", k.last_round_ms / 1000);
  m.HistogramFamily("synergy_job_queue_wait_seconds",
                    "From a job's submission to its first launch (a profiling launch included).", k.queue_wait_s);
  m.HistogramFamily("synergy_job_completion_seconds", "From a job's submission to its success (JCT).",
                    k.completion_s);
  m.Counter("synergy_rounds_total", "Rounds run.", k.rounds);
  m.Counter("synergy_leases_granted_total", "Leases granted.", k.leases_granted);
  m.Family("synergy_leases_ended_total", "counter",
           "Leases ended, by cause: round (planned away), profiled, cancelled, finished (withdrawn unlaunched), "
           "exited, crashed, node_leaving, node_lost, not_readopted (after a restart), held, requeued, not_started "
           "(its node never reported the process launched).");
  for (int i = 0; i < kLeaseEndCauses; ++i) {
    m.Sample("synergy_leases_ended_total", {{"cause", LeaseEndCauseName(static_cast<LeaseEndCause>(i))}},
             k.leases_ended_by_cause[i]);
  }
  m.Counter("synergy_leases_kept_total", "Leases a round kept unchanged.", k.leases_kept);
  m.Counter("synergy_launch_tries_total", "Launches between rounds tried (events coalesced over launch_debounce_ms).",
            k.launch_tries);
  m.Counter("synergy_launches_between_rounds_total", "Leases granted between rounds, on what ended leases freed.",
            k.launches_between_rounds);
  m.Counter("synergy_leases_resized_total", "Leases amended in place: CPUs or memory changed without a restart.",
            k.leases_resized);
  m.Counter("synergy_jobs_submitted_total", "Jobs accepted.", k.jobs_submitted);
  m.Counter("synergy_jobs_requeued_total", "Jobs requeued after a crash or a lost node.", k.jobs_requeued);
  m.Gauge("synergy_store_refusing", "1 while the state store refuses writes (nothing changes until it takes them "
          "again; nodes stay alive on their heartbeats), else 0.", state.store_refusing() > 0 ? 1 : 0);
  m.Counter("synergy_store_failures_total",
            "Changes the state store refused (a full disk, a read-only file); each was undone and not acted on.",
            k.store_failures);
}

}  // namespace

std::string RenderMetrics(const DaemonState& state, int64_t now_ms) {
  service::MetricsText m;
  const v1::ClusterState c = state.Cluster();
  m.Family("synergy_build_info", "gauge", "Always 1; the build's version and source revision as labels.");
  m.Sample("synergy_build_info", {{"version", kSynergyVersion}, {"revision", kSynergyRevision}}, 1);

  m.Family("synergy_jobs", "gauge", "Jobs by state.");
  for (int s = v1::JOB_STATE_PENDING; s <= v1::JOB_STATE_TIMED_OUT; ++s) {
    const std::string name = service::JobStateName(static_cast<v1::JobState>(s));
    auto it = c.jobs_by_state().find(name);
    m.Sample("synergy_jobs", {{"state", name}}, it == c.jobs_by_state().end() ? 0 : it->second);
  }
  m.Gauge("synergy_gpus", "GPUs of alive nodes.", c.gpus());
  m.Gauge("synergy_gpus_allocated", "GPUs held by leases.", c.allocated_gpus());
  m.Gauge("synergy_gpus_free", "GPUs of alive nodes not held by leases.", c.gpus() - c.allocated_gpus());
  m.Gauge("synergy_cpus", "CPUs (cores, or CPU slots) of alive nodes.", c.cpus());
  m.Gauge("synergy_cpus_allocated", "CPUs held by leases.", c.allocated_cpus());
  m.Gauge("synergy_cpus_free", "CPUs of alive nodes not held by leases.", c.cpus() - c.allocated_cpus());
  m.Gauge("synergy_memory_bytes", "Memory of alive nodes.", c.mem_gb() * kBytesPerGb);
  m.Gauge("synergy_memory_allocated_bytes", "Memory held by leases.", c.allocated_mem_gb() * kBytesPerGb);
  m.Gauge("synergy_memory_free_bytes", "Memory of alive nodes not held by leases.",
          (c.mem_gb() - c.allocated_mem_gb()) * kBytesPerGb);

  TenantMetrics(c, m);
  NodeMetrics(state.ListNodes(now_ms), now_ms, m);
  RoundAndLeaseMetrics(state, m);
  return m.Take();
}

}  // namespace synergy::daemon
