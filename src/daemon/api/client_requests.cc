// ClientGateway, the client API: submit (in three steps, for group commit),
// cancel, describe, a lease's output, nodes, the cluster, drains.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "daemon/api/client_gateway.h"

#include "daemon/round/lease_actions.h"
#include "daemon/round/round_input.h"
#include "service/credentials.h"
#include "service/durations.h"
#include "service/escape.h"
#include "service/job_arrays.h"
#include "service/job_spec.h"
#include "service/request_limits.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

absl::StatusOr<std::string> ClientGateway::Submit(const v1::JobSpec& spec, const std::string& owner,
                                                int64_t now_ms) {
  auto prepared = PrepareSubmit(spec, owner, now_ms);
  if (!prepared.ok()) return prepared.status();
  const absl::Status stored = StoreSubmission(*prepared);
  return FinishSubmit(std::move(*prepared), stored);
}

absl::StatusOr<DaemonState::PreparedSubmit> ClientGateway::PrepareSubmit(const v1::JobSpec& spec,
                                                                       const std::string& owner, int64_t now_ms) {
  service::JobLimits limits;
  limits.max_gpus = state_.nodes_.TotalGpus();
  // A job runs on nodes of one GPU type: on nodes of several, the most it
  // may ask for is the largest type's (a larger one would wait forever).
  const std::map<std::string, int> by_type = state_.nodes_.GpusByType(state_.zoo_.base_gpu_type());
  if (by_type.size() > 1) {
    auto largest = std::max_element(by_type.begin(), by_type.end(),
                                    [](const auto& a, const auto& b) { return a.second < b.second; });
    limits.max_gpus = largest->second;
    limits.max_gpus_of = absl::StrCat("largest GPU type's (", largest->first, "; a job runs on one type)");
  }
  limits.zoo = &state_.zoo_;
  if (auto st = service::ValidateJobSpec(spec, limits); !st.ok()) return st;
  const int64_t max_limit_s = state_.config_.max_time_limit_s;
  if (max_limit_s > 0 && spec.time_limit_s() > max_limit_s) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec.time_limit_s: '", spec.time_limit_s(), "': more than this cluster's max_time_limit (",
        service::FormatDurationSeconds(max_limit_s), ")"));
  }
  v1::JobSpec stored = spec;
  if (spec.time_limit_s() == 0) stored.set_time_limit_s(state_.config_.default_time_limit_s);
  if (auto st = CheckDependenciesKnown(stored); !st.ok()) return st;
  std::vector<int> indices;
  if (!spec.array().empty()) {
    auto array = service::ParseArraySpec(spec.array());
    if (!array.ok()) return absl::InvalidArgumentError(absl::StrCat("spec.", array.status().message()));
    indices = std::move(array->indices);
  }
  // Ids are taken now: a submission that is refused leaves a gap, never an
  // id given twice. An array's are consecutive (job_references.cc counts
  // on it).
  PreparedSubmit prepared;
  const size_t count = indices.empty() ? 1 : indices.size();
  for (size_t k = 0; k < count; ++k) {
    v1::Job& job = prepared.jobs.emplace_back();
    job.set_id(state_.jobs_.TakeId(owner));
    *job.mutable_spec() = stored;
    if (!indices.empty()) {
      job.set_array_id(prepared.jobs.front().id());
      job.set_array_index(indices[k]);
    }
    job.set_owner(owner);
    job.set_state(v1::JOB_STATE_PENDING);
    job.set_reason("submitted");
    job.set_submitted_unix_ms(now_ms);
    state_.Record(prepared.batch, job, SubmittedEvent(job, owner), now_ms);
  }
  prepared.batch.counters[DaemonState::kNextJobCounter] = state_.jobs_.next_id();
  return prepared;
}

absl::Status ClientGateway::CheckDependenciesKnown(const v1::JobSpec& spec) const {
  DaemonState::DependencyLookups lookups;
  size_t jobs = 0;
  for (const auto* list : {&spec.after_ok(), &spec.after_any()}) {
    const bool after_ok = list == &spec.after_ok();
    for (int i = 0; i < list->size(); ++i) {
      const std::string at = absl::StrCat("spec.", after_ok ? "after_ok" : "after_any", "[", i, "]");
      const std::string& name = (*list)[i];
      const std::optional<v1::JobState> state = state_.KnownJobState(name, &lookups);
      if (!state) {
        return absl::InvalidArgumentError(
            absl::StrCat(at, ": ", service::QuoteForMessage(name), " is not a job synergyd knows"));
      }
      if (*state == v1::JOB_STATE_UNSPECIFIED) {
        return absl::UnavailableError(absl::StrCat(at, ": the store cannot say what became of ", name, "; try again"));
      }
      // Every round judges them: an array of many jobs counts as many.
      jobs += std::max<size_t>(1, state_.ArrayJobsOf(name, &lookups).size());
      if (jobs > service::kMaxDependencyJobs) {
        return absl::InvalidArgumentError(absl::StrCat(at, ": the dependencies name more than ",
                                                       service::kMaxDependencyJobs, " jobs (arrays count each job)"));
      }
      // One that has ended badly can never be met: refused now rather than
      // accepted and cancelled at the next round.
      v1::JobSpec one;
      (after_ok ? one.add_after_ok() : one.add_after_any())->assign(name);
      const DependencyCheck check = CheckDependencies(
          one, [&](const std::string& j) { return state_.KnownJobState(j, &lookups); },
          [&](const std::string& j) { return state_.ArrayJobsOf(j, &lookups); });
      if (check.outcome == DependencyCheck::Outcome::kNeverMet) {
        return absl::InvalidArgumentError(absl::StrCat(at, ": ", DescribeDependency(check)));
      }
    }
  }
  return absl::OkStatus();
}

std::string ClientGateway::SubmittedEvent(const v1::Job& job, const std::string& owner) {
  const v1::JobSpec& spec = job.spec();
  std::string text = absl::StrFormat("submitted by %s: %d GPUs, model '%s', %s", owner, spec.gpus(), spec.model(),
                                     spec.uses_agent() ? "agent" : "plain process");
  if (!job.array_id().empty()) {
    absl::StrAppend(&text, "; index ", job.array_index(), " of array ", job.array_id(), " (", spec.array(), ")");
  }
  if (spec.after_ok_size() > 0) absl::StrAppend(&text, "; after_ok ", absl::StrJoin(spec.after_ok(), ","));
  if (spec.after_any_size() > 0) absl::StrAppend(&text, "; after_any ", absl::StrJoin(spec.after_any(), ","));
  return text;
}

absl::Status ClientGateway::StoreSubmission(const PreparedSubmit& prepared) { return state_.group_->Commit(prepared.batch); }

absl::StatusOr<std::string> ClientGateway::FinishSubmit(PreparedSubmit prepared, const absl::Status& stored) {
  for (const v1::Job& job : prepared.jobs) state_.jobs_.EndSubmission(job.owner());
  if (auto st = state_.NoteCommit(stored, prepared.batch); !st.ok()) return st;
  if (DaemonState::AwaitsDependencies(prepared.jobs.front())) ++state_.dependency_generation_;
  state_.counters_.jobs_submitted += prepared.jobs.size();
  state_.NoteLaunchEvent(prepared.jobs.front().submitted_unix_ms());
  const std::string id = prepared.jobs.front().id();
  for (v1::Job& job : prepared.jobs) state_.jobs_.Admit(std::move(job));
  return id;
}

absl::StatusOr<std::string> ClientGateway::OwnerOf(const std::string& job_id) const {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
  return it->second.owner();
}

int ClientGateway::ActiveJobsOf(const std::string& owner) const { return state_.jobs_.ActiveJobsOf(owner); }

absl::StatusOr<v1::Job> ClientGateway::Cancel(const std::string& job_id, int64_t now_ms) {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
  if (state_.Terminal(it->second)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job_id, " is already ", service::JobStateName(it->second.state())));
  }
  DaemonState::Change change(state_);
  v1::Job& job = state_.jobs_.Edit(job_id);
  Batch batch;
  state_.jobs_.Move(job, JobMove::kCancel, "cancelled by request", now_ms);
  if (job.has_lease()) state_.actions().EndLease(job, "cancelled", LeaseEndCause::kCancelled, batch, now_ms);
  state_.Record(batch, job, "cancelled", now_ms);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  return state_.jobs_.at(job_id);
}

absl::StatusOr<v1::Job> ClientGateway::GetJob(const std::string& job_id) const {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) {
    auto retired = state_.store_->LoadRetiredJob(job_id);
    if (absl::IsNotFound(retired.status())) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
    return retired;
  }
  std::vector<v1::Job> one{it->second};
  state_.board_.Overlay(one);
  SayWhyWaiting(one);
  v1::Job job = std::move(one[0]);
  auto events = state_.store_->LoadEvents(job_id);
  if (!events.ok()) return events.status();
  for (v1::JobEvent& e : *events) *job.add_events() = std::move(e);
  return job;
}

absl::StatusOr<DaemonState::LogSource> ClientGateway::LogSourceOf(const std::string& job_id, int64_t epoch,
                                                                int rank) const {
  auto it = state_.jobs_.find(job_id);
  if (it == state_.jobs_.end()) return absl::NotFoundError(absl::StrCat("job ", job_id, ": no such job"));
  const v1::Job& job = it->second;
  if (job.lease_nodes_size() == 0) {
    return absl::NotFoundError(absl::StrCat("job ", job_id, " has not run yet: no output"));
  }
  LogSource source;
  source.latest_epoch = job.lease_nodes(job.lease_nodes_size() - 1).epoch();
  source.job_ended = state_.Terminal(job);
  const v1::LeaseNodes* lease = nullptr;
  for (const v1::LeaseNodes& l : job.lease_nodes()) {
    if (epoch == 0 ? l.epoch() == source.latest_epoch : l.epoch() == epoch) lease = &l;
  }
  if (lease == nullptr) {
    return absl::NotFoundError(absl::StrCat("job ", job_id, " had no lease ", epoch, " (of the last ",
                                            kMaxLeaseNodes, " it remembers)"));
  }
  if (rank < 0 || rank >= lease->nodes_size()) {
    return absl::NotFoundError(absl::StrCat("job ", job_id, " lease ", lease->epoch(), " has ranks 0 to ",
                                            lease->nodes_size() - 1, ", not ", rank));
  }
  source.node = lease->nodes(rank);
  source.epoch = lease->epoch();
  for (const v1::LeaseNodes& l : job.lease_nodes()) {
    if (l.epoch() > source.epoch && (source.next_epoch == 0 || l.epoch() < source.next_epoch)) {
      source.next_epoch = l.epoch();
    }
  }
  auto node = state_.nodes_.find(source.node);
  if (node == state_.nodes_.end() || !node->second.info.alive()) {
    return absl::UnavailableError(absl::StrCat("node ", source.node, " is not connected; the output of lease ",
                                               source.epoch, " stays in its log_dir (", job_id, ".",
                                               source.epoch, ".out and .err)"));
  }
  return source;
}

std::vector<v1::Node> ClientGateway::ListNodes(int64_t) const {
  // One walk over the jobs (in id order), not one per node.
  std::map<std::string, v1::Node> by_name;
  for (const auto& [name, n] : state_.nodes_.all()) {
    v1::Node& node = by_name[name];
    node = n.info;
    node.clear_jobs();
    node.clear_allocated();
  }
  for (const auto& [id, job] : state_.jobs_.all()) {
    if (!job.has_lease()) continue;
    for (const v1::LeaseSlice& s : job.lease().slices()) {
      auto it = by_name.find(s.node());
      if (it == by_name.end()) continue;
      v1::Node& node = it->second;
      node.add_jobs(id);
      v1::NodeResources* allocated = node.mutable_allocated();
      for (int g : s.gpu_ids()) allocated->add_gpu_ids(g);
      for (int c : s.cpu_ids()) allocated->add_cpu_ids(c);
      allocated->set_mem_gb(allocated->mem_gb() + s.mem_gb());
    }
  }
  std::vector<v1::Node> out;
  out.reserve(by_name.size());
  for (auto& [name, node] : by_name) out.push_back(std::move(node));
  return out;
}

v1::ClusterState ClientGateway::Cluster() const {
  v1::ClusterState c;
  for (const auto& [name, n] : state_.nodes_.all()) {
    c.set_nodes(c.nodes() + 1);
    if (!n.info.alive()) continue;
    c.set_nodes_alive(c.nodes_alive() + 1);
    c.set_gpus(c.gpus() + n.info.capacity().gpu_ids_size());
    c.set_cpus(c.cpus() + n.info.capacity().cpu_ids_size());
    c.set_mem_gb(c.mem_gb() + n.info.capacity().mem_gb());
  }
  std::map<std::string, v1::TenantState> tenants;
  for (const auto& [id, job] : state_.jobs_.all()) {
    (*c.mutable_jobs_by_state())[service::JobStateName(job.state())]++;
    if (state_.Terminal(job)) continue;
    v1::TenantState& tenant = tenants[job.spec().tenant()];
    if (!job.has_lease()) tenant.set_waiting_jobs(tenant.waiting_jobs() + 1);
    for (const v1::LeaseSlice& s : job.lease().slices()) {
      c.set_allocated_gpus(c.allocated_gpus() + s.gpu_ids_size());
      c.set_allocated_cpus(c.allocated_cpus() + s.cpu_ids_size());
      c.set_allocated_mem_gb(c.allocated_mem_gb() + s.mem_gb());
      tenant.set_allocated_gpus(tenant.allocated_gpus() + s.gpu_ids_size());
    }
  }
  for (const auto& [name, seconds] : state_.counters_.tenant_gpu_seconds) tenants[name].set_gpu_seconds(seconds);
  for (const TenantConfig& t : state_.config_.auth.tenants) {
    tenants[t.name].set_quota_gpus(t.gpus);
    tenants[t.name].set_borrow(t.borrow);
  }
  for (auto& [name, tenant] : tenants) {
    tenant.set_name(name);
    *c.add_tenants() = std::move(tenant);
  }
  c.set_round(state_.round_);
  c.set_policy(state_.config_.policy);
  c.set_mechanism(state_.config_.mechanism);
  c.set_last_round_ms(state_.counters_.last_round_ms);
  return c;
}

absl::StatusOr<v1::Node> ClientGateway::SetDrained(const std::string& node, bool drained, int64_t now_ms,
                                                 const std::string& reason) {
  auto it = state_.nodes_.find(node);
  if (it == state_.nodes_.end()) return absl::NotFoundError(absl::StrCat("node ", node, ": not registered"));
  NodeDrain drain;
  if (drained) {
    const v1::Node& info = it->second.info;
    drain = NodeDrain{true, reason, info.drained() ? info.drained_unix_ms() : now_ms};
  }
  Batch batch;
  batch.drained[node] = drain;
  DaemonState::Change change(state_);
  if (auto st = change.Commit(std::move(batch)); !st.ok()) return st;
  state_.nodes_.SetDrained(node, std::move(drain));
  if (!drained) state_.NoteLaunchEvent(now_ms);
  spdlog::info("node {} {}{}", node,
               drained ? "drained: no new leases; running jobs end at the next round" : "undrained",
               drained && !reason.empty() ? absl::StrCat(" (", service::EscapeForDisplay(reason), ")") : "");
  return ListNodes(now_ms)[std::distance(state_.nodes_.begin(), it)];
}

}  // namespace synergy::daemon
