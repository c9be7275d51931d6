#include "sim/simulator.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <deque>
#include <optional>
#include <set>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "synergy/allocation_speed.h"
#include "synergy/between_rounds.h"
#include "synergy/gpu_type_model.h"
#include "synergy/job_view_rules.h"
#include "synergy/round.h"
#include "synergy/standing_queue.h"
#include "synergy/lease_fate.h"
#include "synergy/lease_keeping.h"
#include "synergy/sticky_servers.h"

namespace synergy::sim {
namespace {

// A run gives up when measured jobs are still unfinished this long after the
// last of them arrived: some job can never be placed on this cluster.
constexpr double kGiveUpAfterS = 100000.0 * 3600.0;
// Plans a round makes at most while keeping leases (as synergyd's).

struct SimJob {
  JobView view;
  JobSpec spec;
  bool measured = false;
  double executed = 0;
  double start_s = -1;
  double finish_s = -1;
  double finishes_at_s = -1;  // default mode: exact time the last iteration ends
  // Default mode: what it held last round (empty: it did not run), restart
  // time not yet served, and its restarts and resizes.
  Slices held;
  double held_speedup = 1;
  bool held_at_ideal = false;
  double restart_debt_s = 0;
  int restarts = 0;
  int resizes = 0;
  // Time it has held leases (what JobSpec::time_limit_s counts), and
  // whether it ended at that limit rather than by finishing its work.
  double run_s = 0;
  bool timed_out = false;
  bool running = false;  // in running_: it holds a lease until the next round
  // Heterogeneous clusters: its view on each GPU type (`view`, the one
  // policies order, has the reference type's model fields), the type of
  // its last round, and its iteration time at the share on the reference
  // type (what a second of service is worth).
  std::vector<JobView> typed;
  int held_type = -1;
  double reference_iteration_s = 1;
};

// How a job's assignment this round follows what it held last round.
enum class LeaseChange { kFirstStart, kSame, kResize, kRestart };

LeaseChange ChangeOf(const SimJob& job, Slices previous, Slices planned) {
  if (previous.empty()) return job.start_s < 0 ? LeaseChange::kFirstStart : LeaseChange::kRestart;
  if (previous.size() != planned.size()) return LeaseChange::kRestart;
  auto by_server = [](const Slice& x, const Slice& y) { return x.server < y.server; };
  std::sort(previous.begin(), previous.end(), by_server);
  std::sort(planned.begin(), planned.end(), by_server);
  bool same = true;
  for (size_t i = 0; i < previous.size(); ++i) {
    const Slice& p = previous[i];
    const Slice& s = planned[i];
    if (p.server != s.server || p.resources.gpus != s.resources.gpus) return LeaseChange::kRestart;
    same = same && std::abs(p.resources.cpus - s.resources.cpus) < 1e-9 &&
           std::abs(p.resources.mem_gb - s.resources.mem_gb) < 1e-9;
  }
  return same ? LeaseChange::kSame : LeaseChange::kResize;
}

// The engine gets its jobs back from the core as JobView pointers; a SimJob
// starts with its view, so the two addresses are interchangeable.
static_assert(std::is_standard_layout_v<SimJob>);
static_assert(offsetof(SimJob, view) == 0);
SimJob* FromView(const JobView* view) {
  return reinterpret_cast<SimJob*>(const_cast<JobView*>(view));
}

using NextJob = std::function<std::optional<JobSpec>()>;

class Engine {
 public:
  Engine(const SimConfig& config, NextJob next, JobId measure_from, JobId measure_to,
         int64_t measured_count, bool replay)
      : config_(config),
        next_(std::move(next)),
        measure_from_(measure_from),
        measure_to_(measure_to),
        measured_count_(measured_count),
        replay_(replay) {
    lookahead_ = next_();
  }

  absl::StatusOr<SimResult> Run() {
    if (absl::Status st = PrepareGpuTypes(); !st.ok()) return st;
    if (config_.standing_queue && !typed_ && !KeepsLeases() && !config_.on_round &&
        !config_.policy->key_moves_with_time() && !LaunchesBetweenRounds() && !config_.tenants.Active() &&
        !FairShare()) {
      standing_.emplace(*config_.policy, *config_.mechanism, config_.reference_compatible);
    }
    const double round = config_.round_s;
    double t = FirstRoundAt();
    result_.first_schedule_s = t;
    result_.round_s = round;
    for (const ServerSpec& s : config_.cluster->servers()) widest_server_gpus_ = std::max(widest_server_gpus_, s.capacity.gpus);
    while (true) {
      Admit(t);
      if (EndLeases(t)) break;
      if (QueueEmpty()) {
        if (!lookahead_) break;                            // every job has run
        if (replay_ && config_.reference_compatible) break;  // the reference's early stop
        t = IdleUntilTheNextArrival(t);
        continue;
      }
      ScheduleAt(t);
      if (running_.empty()) {
        const SimJob* stuck = standing_ ? FromView(standing_->Front()) : queue_.front();
        return absl::FailedPreconditionError(absl::StrCat(
            "job ", stuck->spec.id, " (", stuck->spec.gpus, " GPUs, ",
            config_.zoo->model(stuck->spec.model).name,
            ") cannot be placed even on an empty cluster"));
      }
      if (!config_.reference_compatible) BetweenRounds(t);
      if (last_measured_arrival_s_ >= 0 && t - last_measured_arrival_s_ > kGiveUpAfterS) {
        return absl::DeadlineExceededError(absl::StrCat(
            "measured jobs still unfinished ", kGiveUpAfterS / 3600,
            " hours after the last one arrived; some job never gets placed"));
      }
      if (config_.progress) {
        config_.progress(SimProgress{t, finished_measured_, measured_count_,
                                     static_cast<int>(QueueSize())});
      }
      t += round;
    }
    result_.end_s = t;
    for (const SimJob& job : jobs_) {
      if (!job.measured) continue;
      JobRecord record{job.spec, job.start_s, job.finish_s, job.restarts, job.resizes, job.held_type, job.timed_out};
      result_.restarts += job.restarts;
      result_.resizes += job.resizes;
      if (job.finish_s < 0) ++result_.unfinished;
      result_.jobs.push_back(record);
    }
    // Unmeasured or never-arrived jobs of a replay still count as unfinished.
    result_.unfinished += measured_count_ - static_cast<int64_t>(result_.jobs.size());
    std::sort(result_.jobs.begin(), result_.jobs.end(),
              [](const JobRecord& a, const JobRecord& b) { return a.spec.id < b.spec.id; });
    return std::move(result_);
  }

 private:
  bool Measured(JobId id) const { return id >= measure_from_ && id < measure_to_; }

  bool QueueEmpty() const { return standing_ ? standing_->empty() : queue_.empty(); }
  size_t QueueSize() const { return standing_ ? standing_->size() : queue_.size(); }
  // The standing queue repositions a job whose view changed at the next round.
  void Touched(const SimJob& job) {
    if (standing_) standing_->Touch(&job.view);
  }

  // A cluster of several GPU types: each type's servers, and every model on
  // each type. Every model must have a speed for every type.
  absl::Status PrepareGpuTypes() {
    const Cluster& cluster = *config_.cluster;
    const ModelZoo& zoo = *config_.zoo;
    // One type that is not the zoo's base type runs typed too: its jobs run
    // at their profile on it.
    typed_ = HasOtherGpuTypes(cluster, zoo.base_gpu_type());
    if (!typed_) return absl::OkStatus();
    if (config_.reference_compatible) {
      return absl::InvalidArgumentError(
          "cluster: several GPU types, not with --reference-compatible (the reference assumes one)");
    }
    const std::vector<std::string>& types = cluster.gpu_types();
    type_parts_ = PartsByGpuType(cluster, zoo.base_gpu_type());
    // Without servers of the base type, policies still see each job on it,
    // as on the whole cluster (its share there).
    if (type_parts_.base < 0) {
      for (int m = 0; m < static_cast<int>(zoo.models().size()); ++m) {
        absl::StatusOr<ModelSpec> base = ModelOnGpuType(zoo.model(m), 1.0, cluster.share_per_gpu());
        if (!base.ok()) return absl::InvalidArgumentError(absl::StrCat("cluster: ", base.status().message()));
        base_models_.push_back(*std::move(base));
      }
    }
    for (size_t t = 0; t < types.size(); ++t) {
      std::vector<ModelSpec>& models = typed_models_.emplace_back();
      for (int m = 0; m < static_cast<int>(zoo.models().size()); ++m) {
        const std::optional<double> speed = zoo.GpuSpeed(m, types[t]);
        if (!speed) {
          return absl::InvalidArgumentError(absl::StrCat(
              "cluster: GPU type '", types[t], "': model '", zoo.model(m).name,
              "' has no gpu_speed for it in the model zoo (base type '", zoo.base_gpu_type(), "')"));
        }
        absl::StatusOr<ModelSpec> typed = ModelOnGpuType(zoo.model(m), *speed, type_parts_.parts[t].cluster.share_per_gpu());
        if (!typed.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("cluster: GPU type '", types[t], "': ", typed.status().message()));
        }
        models.push_back(*std::move(typed));
      }
    }
    return absl::OkStatus();
  }

  // Model `model`'s spec on each type, and on the base type where the
  // cluster has no server of it.
  ModelsOnTypes ModelsOf(int model) const {
    ModelsOnTypes out;
    for (const std::vector<ModelSpec>& on_type : typed_models_) out.on_type.push_back(&on_type[model]);
    if (type_parts_.base < 0) out.on_base = &base_models_[model];
    return out;
  }

  // The GPU type of the servers an assignment is on (one type a job).
  int TypeOf(const Assignment& a) const { return config_.cluster->gpu_type_of(a.slices.front().server); }

  // What a unit of a job's speedup on `type` is worth on the reference
  // type (its rate there over the reference's, at the shares): the weight
  // of its service and carried speedup, and of a lease in lease_fate.h.
  static double TypeWeight(const SimJob& job, int type) {
    return job.reference_iteration_s / job.typed[type].iteration_time_s;
  }

  bool FairShare() const { return config_.fair_share_half_life_s > 0; }

  // The tenant's index: in the run's quotas (SimConfig::tenant_names), or,
  // with fair share, after them from its first job on ("" included); -1
  // for none.
  int TenantIndex(const std::string& tenant) {
    // Jobs of no tenant share one for fair share, as synergyd's "".
    if (tenant.empty() && !FairShare()) return -1;
    auto it = std::find(tenant_names_.begin(), tenant_names_.end(), tenant);
    if (it != tenant_names_.end()) return static_cast<int>(it - tenant_names_.begin());
    if (!FairShare()) return -1;
    tenant_names_.push_back(tenant);
    return static_cast<int>(tenant_names_.size()) - 1;
  }
  int UserIndex(const std::string& user) {
    if (!FairShare() || user.empty()) return -1;
    return user_index_.emplace(user, static_cast<int>(user_index_.size())).first->second;
  }

  // What a round's tenant phase reads at `t`: the quotas, and with fair
  // share the usage so far; null when there is neither.
  const TenantQuotas* TenantsAt(double t) {
    if (!config_.tenants.Active() && !FairShare()) return nullptr;
    round_tenants_ = config_.tenants;
    if (!FairShare()) return &round_tenants_;
    round_tenants_.usage.assign(tenant_names_.size(), 0);
    for (size_t i = 0; i < tenant_names_.size(); ++i) {
      const int share = i < config_.tenants.quotas.size() ? std::max(1, config_.tenants.quotas[i].gpus) : 1;
      round_tenants_.usage[i] = tenant_usage_.At(static_cast<int>(i), t) / share;
    }
    round_tenants_.user_usage.assign(user_index_.size(), 0);
    for (size_t i = 0; i < user_index_.size(); ++i) round_tenants_.user_usage[i] = user_usage_.At(static_cast<int>(i), t);
    return &round_tenants_;
  }

  // Arrivals come before lease ends and the schedule at the same instant.
  void Admit(double t) {
    while (lookahead_ && lookahead_->arrival_s <= t) {
      const JobSpec& spec = *lookahead_;
      const ModelSpec& model = config_.zoo->model(spec.model);
      SimJob& job = jobs_.emplace_back();
      job.spec = spec;
      job.measured = Measured(spec.id);
      if (job.measured) last_measured_arrival_s_ = spec.arrival_s;
      JobView& v = job.view;
      v.id = spec.id;
      v.gpus = spec.gpus;
      v.arrival_s = spec.arrival_s;
      v.requested_cpus = spec.requested_cpus;
      v.requested_mem_gb = spec.requested_mem_gb;
      v.tenant = TenantIndex(spec.tenant);
      v.user = UserIndex(spec.user);
      SetModelFields(v, &model, *config_.cluster);
      v.total_iterations = spec.iterations;
      v.remaining_iterations = spec.iterations;
      if (typed_) {
        std::deque<JobView> typed;
        BuildTypedViews(v, ModelsOf(spec.model), *config_.cluster, type_parts_,
                        *config_.cluster, typed);
        job.typed.assign(typed.begin(), typed.begin() + static_cast<std::ptrdiff_t>(type_parts_.parts.size()));
        job.reference_iteration_s = v.iteration_time_s;
      }
      v.last_round_speedup = CarriedSpeedup(v.ideal_speedup, 1.0, /*held_ideal=*/true);
      by_id_[spec.id] = &job;
      if (standing_) {
        standing_->Add(&job.view);
      } else {
        queue_.push_back(&job);
      }
      lookahead_ = next_();
    }
  }

  // Ends every lease of the previous round; true when the measurement is
  // complete (the run stops there, as the reference's does).
  bool EndLeases(double t) {
    bool complete = false;
    bool any_finished = false;
    booked_before_.clear();
    for (SimJob* job : running_) {
      job->running = false;
      job->view.last_execution_end_s = t;
      if (job->executed < job->view.total_iterations) {
        Touched(*job);
        if (standing_) booked_before_.push_back(job);
        continue;
      }
      job->finish_s = config_.reference_compatible ? t : job->finishes_at_s;
      any_finished = true;
      by_id_.erase(job->spec.id);
      if (standing_) standing_->Remove(&job->view);
      if (job->measured && ++finished_measured_ == measured_count_) complete = true;
    }
    running_.clear();
    // Finished jobs leave the queue; the others keep their order.
    if (any_finished && !standing_) {
      std::erase_if(queue_, [](const SimJob* j) { return j->finish_s >= 0; });
    }
    return complete;
  }

  // The round at `t` on the whole queue, sorted; the queue keeps its order.
  RoundResult ScheduleSorted(double t) {
    RoundInput input;
    input.now_s = t;
    input.cluster = config_.cluster;
    input.reference_compatible = config_.reference_compatible;
    input.gpu_placement = config_.gpu_placement;
    input.tenants = TenantsAt(input.now_s);
    input.queue.reserve(queue_.size());
    for (const SimJob* job : queue_) input.queue.push_back(&job->view);
    RoundResult round = typed_ ? ScheduleByType(input) : ScheduleRound(input, *config_.policy, *config_.mechanism);
    if (config_.on_round) config_.on_round(input, round);
    if (KeepsLeases()) KeepLeases(input, round.plan);

    // The queue keeps the policy's order for the next round's stable sort.
    for (size_t i = 0; i < round.order.size(); ++i) queue_[i] = FromView(round.order[i]);
    // A job that holds nothing this round carries its ideal speedup; Book
    // sets what the placed ones carry.
    for (SimJob* job : queue_) {
      job->view.last_round_speedup = CarriedSpeedup(job->view.ideal_speedup, 1.0, /*held_ideal=*/true);
    }
    return round;
  }

  // The same round on the standing queue: only the jobs that ran last
  // round go back to carrying their ideal speedup (every other job
  // already does).
  RoundResult ScheduleStanding(double t) {
    RoundResult round = ScheduleStandingRound(*standing_, t, *config_.cluster, config_.gpu_placement);
    for (SimJob* job : booked_before_) {
      job->view.last_round_speedup = CarriedSpeedup(job->view.ideal_speedup, 1.0, /*held_ideal=*/true);
      Touched(*job);
    }
    booked_before_.clear();
    return round;
  }

  // Default mode: what the job held last round (`previous`, which it
  // leaves) decides what `a` costs it (nothing, a resize or a restart),
  // and it holds `a` from now on.
  void HoldFromNow(SimJob& job, const Assignment& a, std::unordered_map<JobId, Slices>& previous) {
    auto p = previous.find(a.job);
    const Slices before = p == previous.end() ? Slices() : std::move(p->second);
    if (p != previous.end()) previous.erase(p);
    // One server: one agent to confirm, as synergyd resizes only those.
    ChargeChange(job, ChangeOf(job, before, a.slices), before.size() == 1);
    job.held = a.slices;
    job.held_speedup = a.speedup;
    job.held_at_ideal = a.at_ideal;
    job.view.runs_without_checkpoint = !job.spec.checkpoints;
    running_before_.push_back(&job);
  }

  // OPT's solver counters, summed over the rounds it solved.
  void CountSolver(const SolverStats& solver) {
    if (!solver.solved) return;
    ++result_.solver_rounds;
    result_.solver_fallbacks += solver.fell_back;
    result_.solver_budget_rounds += solver.hit_budget;
    result_.solver_stepped_down_rounds += solver.stepped_down > 0;
    result_.solver_lp_bound_sum += solver.lp_bound;
    result_.solver_realised_sum += solver.realised;
  }

  void ScheduleAt(double t) {
    RoundResult round = standing_ ? ScheduleStanding(t) : ScheduleSorted(t);
    for (const JobView* view : round.bumped) {
      FromView(view)->view.priority = 1;
      Touched(*FromView(view));
    }
    // Last round's holdings, for the jobs placed again; the others' leases
    // ended.
    std::unordered_map<JobId, Slices> previous;
    if (!config_.reference_compatible) {
      for (SimJob* job : running_before_) {
        if (job->finish_s < 0 && !job->held.empty()) previous[job->spec.id] = std::move(job->held);
        job->held.clear();
      }
      running_before_.clear();
    }

    RoundSample sample;
    sample.time_s = t;
    for (const Assignment& a : round.plan.assignments) {
      SimJob* job = by_id_.at(a.job);
      if (!config_.reference_compatible) HoldFromNow(*job, a, previous);
      Book(*job, a, t, config_.round_s);
      Touched(*job);
      if (config_.on_booked) config_.on_booked(t, a);
      running_.push_back(job);
      job->running = true;
      sample.allocated += a.Total();
      if (typed_) {
        sample.gpus_by_type.resize(type_parts_.parts.size());
        sample.gpus_by_type[job->held_type] += a.Total().gpus;
      }
      sample.throughput += a.speedup;
    }
    // What ran last round and is not placed now: its lease ended.
    for (const auto& [id, held] : previous) {
      if (SimJob& job = *by_id_.at(id); !job.spec.checkpoints) StartOver(job);
    }
    sample.solver = round.plan.solver;
    CountSolver(round.plan.solver);
    sample.running = static_cast<int>(running_.size());
    sample.queued = static_cast<int>(QueueSize()) - sample.running;
    result_.rounds.push_back(sample);
    result_.unplaced_after_revert +=
        static_cast<int64_t>(round.plan.unplaced_after_revert.size());
  }

  // A round on a cluster of several GPU types: each job's views on the
  // types carry what the ordering view has learnt (progress, service,
  // priority, last end).
  RoundResult ScheduleByType(const RoundInput& input) {
    TypedRoundInput typed;
    typed.round = input;
    typed.choice = config_.type_choice;
    for (SimJob* job : queue_) {
      std::vector<const JobView*>& views = typed.on_type[job->spec.id];
      for (JobView& on : job->typed) {
        on.remaining_iterations = job->view.remaining_iterations;
        on.attained_service_s = job->view.attained_service_s;
        on.priority = job->view.priority;
        on.last_execution_end_s = job->view.last_execution_end_s;
        on.runs_without_checkpoint = job->view.runs_without_checkpoint;
        views.push_back(&on);
      }
    }
    return ScheduleTypedRound(typed, *config_.policy, *config_.mechanism);
  }

  bool KeepsLeases() const {
    return !config_.reference_compatible &&
           (config_.keep_leases || config_.restart_cost_s > 0 || config_.resize_in_place);
  }

  // Relabels `plan` (on `cluster`, whose server i is servers_of[i] of the
  // whole cluster) so that running jobs stay on their servers.
  // As synergyd: a slice is held where the job has the same GPUs, CPUs and
  // memory, or the same GPUs when it is resized in place.
  void Stick(Plan& plan, const Cluster& cluster, const std::vector<int>& servers_of) const {
    StickToCurrentServers(plan, cluster, [&](JobId id, int server, const Slice& s) {
      const SimJob& job = *by_id_.at(id);
      const bool resizable = Resizable(job);
      for (const Slice& h : job.held) {
        if (h.server != servers_of[server] || h.resources.gpus != s.resources.gpus) continue;
        if (resizable || (std::abs(h.resources.cpus - s.resources.cpus) < 1e-9 &&
                          std::abs(h.resources.mem_gb - s.resources.mem_gb) < 1e-9)) {
          return true;
        }
      }
      return false;
    });
  }

  // As synergyd's Resizable: resizes in place, one server (one agent), and
  // an agent to follow them (a plain process has none).
  bool Resizable(const SimJob& job) const {
    return config_.resize_in_place && job.held.size() == 1 && job.spec.checkpoints;
  }

  // synergyd's lease keeping (daemon/round/round_planner.h) on the simulator's
  // jobs: the jobs the plan would move or grow by too little keep what they
  // held, the others are planned again around them, until none is added.
  void KeepLeases(const RoundInput& input, Plan& plan) {
    const Cluster& whole = *config_.cluster;
    std::vector<int> identity(whole.num_servers());
    for (int i = 0; i < whole.num_servers(); ++i) identity[i] = i;
    Stick(plan, whole, identity);
    auto held_of = [&](const SimJob& job) {
      HeldAllocation h;
      h.slices = job.held;
      h.speedup = job.held_speedup;
      h.checkpoints = job.spec.checkpoints;
      h.resizable = Resizable(job);
      if (typed_) h.weight = TypeWeight(job, job.held_type);
      return h;
    };
    std::vector<JobId> held_jobs;
    for (const SimJob* job : running_before_) {
      if (job->finish_s < 0 && !job->held.empty()) held_jobs.push_back(job->spec.id);
    }
    // The core's replan loop (synergy/lease_keeping.h), with the servers
    // less what the pinned jobs hold as each plan's cluster.
    KeptLeases kept = KeepLeasesAsHeld(
        std::move(plan), held_jobs,
        [&](JobId id, const Assignment* planned) {
          const SimJob& job = *by_id_.at(id);
          const HeldAllocation held = held_of(job);
          // Planned on another type: its weight there (lease_fate.h).
          const double planned_weight = typed_ && planned != nullptr ? TypeWeight(job, TypeOf(*planned)) : held.weight;
          return DecideLease(held, planned, config_.restart_gain, planned_weight);
        },
        [&](const std::set<JobId>& pins) { return PlanAroundHeld(input, pins); });
    plan = std::move(kept.plan);
    if (config_.on_leases_kept) {
      std::vector<JobId> pinned;
      for (const auto& [id, decision] : kept.pinned) pinned.push_back(id);
      std::sort(pinned.begin(), pinned.end());
      config_.on_leases_kept(plan, pinned);
    }
    for (const auto& [id, decision] : kept.pinned) plan.assignments.push_back(AsHeld(*by_id_.at(id)));
    // In job order.
    std::sort(plan.assignments.begin(), plan.assignments.end(),
              [](const Assignment& x, const Assignment& y) { return x.job < y.job; });
  }

  // The plan of the jobs not in `pinned` on the servers less what those
  // hold (those with nothing left sit out, as synergyd's snapshot leaves
  // them out), kept on their servers and labelled with the whole cluster's
  // server indices.
  Plan PlanAroundPinned(const RoundInput& input, const std::unordered_map<JobId, Assignment>& pinned) const {
    const Cluster& whole = *config_.cluster;
    std::vector<Resources> left(whole.num_servers());
    for (int i = 0; i < whole.num_servers(); ++i) left[i] = whole.servers()[i].capacity;
    for (const auto& [id, a] : pinned) {
      for (const Slice& s : a.slices) {
        left[s.server].gpus -= s.resources.gpus;
        left[s.server].cpus -= s.resources.cpus;
        left[s.server].mem_gb -= s.resources.mem_gb;
      }
    }
    std::vector<ServerSpec> servers;
    std::vector<int> servers_of;
    for (int i = 0; i < whole.num_servers(); ++i) {
      if (left[i].gpus <= 0 || left[i].cpus <= 1e-9 || left[i].mem_gb <= 1e-9) continue;
      ServerSpec spec = whole.servers()[i];
      spec.share_per_gpu = whole.share_per_gpu_on(i);
      spec.capacity.gpus = left[i].gpus;
      spec.capacity.cpus = left[i].cpus;
      spec.capacity.mem_gb = left[i].mem_gb;
      servers.push_back(spec);
      servers_of.push_back(i);
    }
    if (servers.empty()) return Plan{};
    const Cluster around(std::move(servers), whole.share_rule());
    Plan plan = PlanAround(input, around, pinned);
    Stick(plan, around, servers_of);
    for (Assignment& a : plan.assignments) {
      for (Slice& s : a.slices) s.server = servers_of[s.server];
    }
    return plan;
  }

  // The plan for the jobs not in `pinned` on `around` (the servers less
  // what pinned jobs hold), as synergyd's replan (daemon/round/round_planner.cc):
  // each job's demand is taken again on the servers left (an ideal capped
  // at what a server has left, and its speedup scaled with it); on a
  // cluster of several types, each job's views on the types left, and its
  // ordering view on the base type (daemon/round/typed_views.h).
  Plan PlanAround(const RoundInput& input, const Cluster& around,
                  const std::unordered_map<JobId, Assignment>& pinned) const {
    RoundInput again = input;
    again.cluster = &around;
    // The pinned jobs' GPUs count against their tenants' quotas.
    TenantQuotas tenants_around = input.tenants != nullptr ? *input.tenants : TenantQuotas{};
    if (!tenants_around.quotas.empty()) {
      tenants_around.pinned_gpus.assign(tenants_around.quotas.size(), 0);
      for (const auto& [id, assignment] : pinned) {
        auto job = by_id_.find(id);
        const int tenant = job == by_id_.end() ? -1 : job->second->view.tenant;
        if (tenant < 0 || tenant >= static_cast<int>(tenants_around.pinned_gpus.size())) continue;
        tenants_around.pinned_gpus[job->second->view.tenant] += job->second->view.gpus;
      }
    }
    if (input.tenants != nullptr) again.tenants = &tenants_around;
    again.queue.clear();
    std::deque<JobView> views;
    std::deque<ModelSpec> base_models;
    TypedRoundInput typed;
    GpuTypeParts parts;
    std::vector<int> type_in_whole;  // around's type index -> the whole cluster's
    if (typed_) {
      parts = PartsByGpuType(around, config_.zoo->base_gpu_type());
      const std::vector<std::string>& whole_types = config_.cluster->gpu_types();
      for (const std::string& type : around.gpu_types()) {
        type_in_whole.push_back(
            static_cast<int>(std::find(whole_types.begin(), whole_types.end(), type) - whole_types.begin()));
      }
    }
    for (const JobView* v : input.queue) {
      if (pinned.count(v->id) || v->gpus > around.total().gpus) continue;
      const SimJob& job = *FromView(v);
      JobView& again_view = views.emplace_back(*v);
      again.queue.push_back(&again_view);
      if (!typed_) {
        SetModelFields(again_view, &config_.zoo->model(job.spec.model), around);
        continue;
      }
      ModelsOnTypes models;
      for (int w : type_in_whole) models.on_type.push_back(&typed_models_[w][job.spec.model]);
      if (parts.base < 0) {
        absl::StatusOr<ModelSpec> on_base =
            ModelOnGpuType(config_.zoo->model(job.spec.model), 1.0, around.share_per_gpu());
        if (on_base.ok()) models.on_base = &base_models.emplace_back(*std::move(on_base));
      }
      typed.on_type[v->id] = BuildTypedViews(again_view, models, around, parts, around, views).on_type;
    }
    if (!typed_) return ScheduleRound(again, *config_.policy, *config_.mechanism).plan;
    typed.round = std::move(again);
    typed.choice = config_.type_choice;
    return ScheduleTypedRound(typed, *config_.policy, *config_.mechanism).plan;
  }

  // A replay's first round is on the grid after its first arrival (the
  // reference's); with launches between rounds, the first job starts at
  // its arrival, in the round before.
  double FirstRoundAt() const {
    if (!replay_ || !lookahead_) return 0;
    const double rounds = lookahead_->arrival_s / config_.round_s;
    return (LaunchesBetweenRounds() ? std::floor(rounds) : std::ceil(rounds)) * config_.round_s;
  }

  // Nothing to schedule at `t` until the next arrival: the empty rounds
  // are skipped to the time of the next round to run. With launches
  // between rounds, that is the round the arrival falls in, and one that
  // arrives within this round launches at its arrival.
  double IdleUntilTheNextArrival(double t) {
    const double round = config_.round_s;
    const double gap = lookahead_->arrival_s - t;
    if (LaunchesBetweenRounds() && gap < round) {
      result_.rounds.emplace_back().time_s = t;
      BetweenRounds(t);
      return t + round;
    }
    const double rounds = LaunchesBetweenRounds() ? std::floor(gap / round) : std::ceil(gap / round);
    return t + std::max(1.0, rounds) * round;
  }

  bool LaunchesBetweenRounds() const { return config_.launch_between_rounds && !config_.reference_compatible; }

  // A job that ran its last iteration by `at` (its lease lasts to the next
  // round; with launches between rounds its resources are free from then).
  static bool FinishedBy(const SimJob& job, double at) { return job.finishes_at_s >= 0 && job.finishes_at_s <= at; }

  // Default mode, from the round at `t` to the next: each finish and each
  // arrival in between is an event, at its own time. Arrivals join the
  // queue then (the next round sees them as it would have); with launches
  // between rounds, finished jobs free what they held and the waiting jobs
  // are placed on what is free (LaunchAt). Between events the busy and
  // idle GPU-seconds are counted.
  void BetweenRounds(double t) {
    const double end = t + config_.round_s;
    double at = t;
    while (true) {
      double next = end;
      for (const SimJob* job : running_) {
        if (job->finishes_at_s > at && job->finishes_at_s < next) next = job->finishes_at_s;
      }
      if (lookahead_ && lookahead_->arrival_s < next) next = std::max(at, lookahead_->arrival_s);
      CountGpuTime(at, next);
      if (next >= end) return;
      at = next;
      Admit(at);
      if (LaunchesBetweenRounds()) LaunchAt(at, end);
    }
  }

  // GPU-seconds over [from, to): those running jobs hold, and those free
  // while a job waits.
  void CountGpuTime(double from, double to) {
    if (to <= from) return;
    int busy = 0;
    for (const SimJob* job : running_) {
      if (!FinishedBy(*job, from)) busy += job->spec.gpus;
    }
    result_.busy_gpu_s += busy * (to - from);
    const bool waiting = QueueSize() > running_.size();
    if (waiting) result_.idle_gpu_s_while_waiting += (config_.cluster->total().gpus - busy) * (to - from);
  }

  // Launches at `at` (synergy/between_rounds.h): the waiting jobs placed
  // around what every unfinished running job holds, by the round's own
  // replan (PlanAroundPinned); each runs from `at` to the round's `end`.
  // A job that finished at `at` gives back the rest of the round.
  void LaunchAt(double at, double end) {
    RoundSample& sample = result_.rounds.back();
    std::vector<JobId> running;
    int free_gpus = config_.cluster->total().gpus;
    for (SimJob* job : running_) {
      if (FinishedBy(*job, at)) {
        if (job->finishes_at_s == at) {
          for (const Slice& s : job->held) sample.released_s.Add(s.resources, end - at);
          if (typed_) AddTypeGpuSeconds(sample, job->held_type, -job->spec.gpus * (end - at));
        }
        continue;
      }
      running.push_back(job->spec.id);
      free_gpus -= job->spec.gpus;
    }
    RoundInput input;
    input.now_s = at;
    input.cluster = config_.cluster;
    input.gpu_placement = config_.gpu_placement;
    input.tenants = TenantsAt(input.now_s);
    int fewest = 0;
    for (SimJob* job : queue_) {
      if (job->running) continue;
      input.queue.push_back(&job->view);
      if (fewest == 0 || job->spec.gpus < fewest) fewest = job->spec.gpus;
    }
    if (!CanLaunchAny(free_gpus, fewest)) return;
    const Plan plan = LaunchBetweenRounds(running, widest_server_gpus_, [&](const std::set<JobId>& pins) {
      return PlanAroundHeld(input, pins);
    });
    std::unordered_map<JobId, Slices> none;
    for (const Assignment& a : plan.assignments) {
      SimJob& job = *by_id_.at(a.job);
      HoldFromNow(job, a, none);
      Book(job, a, at, end - at);
      if (config_.on_booked) config_.on_booked(at, a);
      running_.push_back(&job);
      job.running = true;
      sample.launched_s.Add(a.Total(), end - at);
      if (typed_) AddTypeGpuSeconds(sample, job.held_type, a.Total().gpus * (end - at));
      ++result_.launches_between_rounds;
    }
  }

  void AddTypeGpuSeconds(RoundSample& sample, int type, double gpu_s) const {
    sample.launched_less_released_gpu_s_by_type.resize(type_parts_.parts.size());
    sample.launched_less_released_gpu_s_by_type[type] += gpu_s;
  }

  // The plan of `input`'s jobs but `pins` around what each of those holds
  // (the replan's and the launches' callback).
  Plan PlanAroundHeld(const RoundInput& input, const std::set<JobId>& pins) const {
    std::unordered_map<JobId, Assignment> pinned;
    for (JobId id : pins) pinned[id] = AsHeld(*by_id_.at(id));
    return PlanAroundPinned(input, pinned);
  }

  // The assignment that keeps what a job holds.
  static Assignment AsHeld(const SimJob& job) {
    Assignment a;
    a.job = job.spec.id;
    a.slices = job.held;
    a.speedup = job.held_speedup;
    a.at_ideal = job.held_at_ideal;
    return a;
  }

  void ChargeChange(SimJob& job, LeaseChange change, bool one_server) {
    switch (change) {
      case LeaseChange::kFirstStart:
      case LeaseChange::kSame:
        return;
      case LeaseChange::kResize:
        if (config_.resize_in_place && one_server) {
          ++job.resizes;
          return;
        }
        break;
      case LeaseChange::kRestart:
        break;
    }
    ++job.restarts;
    // A restart cut short by a preemption is lost work; this one costs its
    // own time, not the rest of the last one on top.
    job.restart_debt_s = config_.restart_cost_s;
    if (!job.spec.checkpoints) StartOver(job);
  }

  // A plain process whose lease ended lost everything it had done.
  static void StartOver(SimJob& job) {
    job.executed = 0;
    job.view.remaining_iterations = job.view.total_iterations;
    job.view.runs_without_checkpoint = false;
  }



  // Progress from `t` for `held_s` (a round, or what is left of it for a
  // job launched between rounds) at the allocation the job was given, less
  // the restart time it still owes.
  // What of `held_s` the job may run, its time limit (JobSpec::time_limit_s)
  // allowing; `at_limit` when the limit ends the lease there. Counted into
  // its run time.
  static double HeldWithinLimit(SimJob& job, double held_s, bool& at_limit) {
    const double limit_s = job.spec.time_limit_s;
    at_limit = limit_s > 0 && job.run_s + held_s >= limit_s;
    if (at_limit) held_s = std::max(0.0, limit_s - job.run_s);
    job.run_s += held_s;
    return held_s;
  }

  // A job whose lease its limit ended before its work: done, as far as the
  // queue is concerned, `held_s` after `lease_start` (reference-compatible
  // runs end it with the round).
  static void EndAtLimit(SimJob& job, double lease_start, double held_s) {
    job.timed_out = true;
    job.executed = job.view.total_iterations;
    job.finishes_at_s = lease_start + held_s;
  }

  void Book(SimJob& job, const Assignment& a, double t, double held_s) {
    const double lease_start = t;
    bool at_limit = false;
    held_s = HeldWithinLimit(job, held_s, at_limit);
    const double lost = std::min(job.restart_debt_s, held_s);
    job.restart_debt_s -= lost;
    t += lost;
    const double round = held_s - lost;
    JobView& v = job.view;
    // On a cluster of several types, the job runs as its view on the type
    // it holds says (`speed`); policies keep seeing it in the reference
    // type's units (its iteration time there, its service and speedup
    // scaled by the held type's rate at the share over the reference's).
    const JobView* speed = &v;
    double type_weight = 1;
    if (typed_) {
      job.held_type = TypeOf(a);
      speed = &job.typed[job.held_type];
      type_weight = TypeWeight(job, job.held_type);
    }
    // Reference-compatible runs credit what the plan said (the reference
    // books the planned speedup); the default runs at what the profile
    // gives the allocation it holds (synergy/allocation_speed.h).
    const AllocationSpeed at = SpeedAtAllocation(config_.reference_compatible ? nullptr : speed->profile, a.slices,
                                                 speed->placement_penalty, a.speedup);
    double iteration_s = speed->iteration_time_s;
    iteration_s = iteration_s / at.placement;
    iteration_s = iteration_s / at.speedup;
    const double remaining = v.total_iterations - job.executed;
    if (config_.reference_compatible) {
      job.executed = std::min(v.total_iterations, job.executed + std::floor(round / iteration_s));
    } else if (round / iteration_s >= remaining) {
      job.finishes_at_s = t + remaining * iteration_s;
      job.executed = v.total_iterations;
    } else {
      job.executed += round / iteration_s;
      // Rounding can carry the sum to the total although the round's work
      // was below what remained: the job ends with the round (else it
      // would end with no finish time and stay queued).
      if (job.executed >= v.total_iterations) {
        job.executed = v.total_iterations;
        job.finishes_at_s = t + round;
      }
    }
    if (at_limit && job.executed < v.total_iterations) EndAtLimit(job, lease_start, held_s);
    v.remaining_iterations = v.total_iterations - job.executed;
    // It held its GPUs all round, restarting or not.
    if (typed_) {
      v.attained_service_s += held_s * type_weight;
      v.last_round_speedup = CarriedSpeedup(speed->ideal_speedup, a.speedup, a.at_ideal) * type_weight;
    } else {
      v.attained_service_s += held_s;
      v.last_round_speedup = CarriedSpeedup(v.ideal_speedup, a.speedup, a.at_ideal);
    }
    if (job.start_s < 0) job.start_s = t - lost;
    if (FairShare()) {
      tenant_usage_.Add(v.tenant, v.gpus * held_s, lease_start);
      user_usage_.Add(v.user, v.gpus * held_s, lease_start);
    }
  }

  SimConfig config_;
  // Tenants (the configured ones first) and users by index, and their GPU
  // usage for fair share; the tenant phase's input of the round at hand.
  std::vector<std::string> tenant_names_ = config_.tenant_names;
  std::map<std::string, int> user_index_;
  DecayedUsage tenant_usage_{config_.fair_share_half_life_s};
  DecayedUsage user_usage_{config_.fair_share_half_life_s};
  TenantQuotas round_tenants_;
  NextJob next_;
  JobId measure_from_;
  JobId measure_to_;
  int64_t measured_count_;
  bool replay_;

  std::optional<JobSpec> lookahead_;
  std::deque<SimJob> jobs_;  // stable addresses
  std::unordered_map<JobId, SimJob*> by_id_;
  std::vector<SimJob*> queue_;    // the persistent policy order (unless standing_)
  // The queue kept in order between rounds (SimConfig::standing_queue), and
  // the jobs it booked last round that are still queued.
  std::optional<StandingQueue> standing_;
  std::vector<SimJob*> booked_before_;
  std::vector<SimJob*> running_;  // leases ending at the next round
  // Default mode: the jobs placed last round, whose holdings the next round
  // compares with (running_ is emptied before it plans).
  std::vector<SimJob*> running_before_;
  // Heterogeneous clusters (PrepareGpuTypes).
  bool typed_ = false;
  // Each type's servers, and the type whose units policies compare jobs
  // in (the zoo's base type; where no server is of it, base_models_, each
  // zoo model on the whole cluster).
  GpuTypeParts type_parts_;
  std::vector<ModelSpec> base_models_;
  std::vector<std::vector<ModelSpec>> typed_models_;  // [type][model]
  int64_t finished_measured_ = 0;
  double last_measured_arrival_s_ = -1;
  int widest_server_gpus_ = 0;  // the most GPUs of one server (launches between rounds)
  SimResult result_;
};

}  // namespace

absl::StatusOr<SimResult> RunTrace(const SimConfig& config, const std::vector<JobSpec>& jobs) {
  if (jobs.empty()) return absl::InvalidArgumentError("trace: no jobs");
  // Plain processes (checkpoints 0) run only where leases are kept, as
  // synergyd keeps them; the reference has none.
  const bool plain = std::any_of(jobs.begin(), jobs.end(), [](const JobSpec& j) { return !j.checkpoints; });
  if (plain && config.reference_compatible) {
    const JobSpec& first = *std::find_if(jobs.begin(), jobs.end(), [](const JobSpec& j) { return !j.checkpoints; });
    return absl::InvalidArgumentError(absl::StrCat(
        "trace: job ", first.id, " cannot checkpoint (checkpoints 0): not with --reference-compatible, "
        "where every job checkpoints"));
  }
  SimConfig run = config;
  if (plain) {
    run.keep_leases = true;
    run.standing_queue = false;  // it orders checkpointing jobs only
  }
  JobId lo = jobs.front().id;
  JobId hi = jobs.front().id;
  for (const JobSpec& j : jobs) {
    lo = std::min(lo, j.id);
    hi = std::max(hi, j.id);
  }
  // Ids are unique; every job of the trace is measured.
  size_t next = 0;
  Engine engine(
      run,
      [&]() -> std::optional<JobSpec> {
        if (next >= jobs.size()) return std::nullopt;
        return jobs[next++];
      },
      lo, hi + 1, static_cast<int64_t>(jobs.size()), /*replay=*/true);
  return engine.Run();
}

absl::StatusOr<SimResult> RunGenerated(const SimConfig& config, WorkloadGenerator& generator,
                                       JobId measure_from, JobId measure_to,
                                       const std::function<void(const JobSpec&)>& on_generated) {
  if (measure_from < 0 || measure_to <= measure_from) {
    return absl::InvalidArgumentError(absl::StrCat(
        "measure: [", measure_from, ",", measure_to, ") is not a non-empty id range"));
  }
  Engine engine(
      config,
      [&]() -> std::optional<JobSpec> {
        JobSpec job = generator.Next();
        if (on_generated) on_generated(job);
        return job;
      },
      measure_from, measure_to, measure_to - measure_from, /*replay=*/false);
  return engine.Run();
}

}  // namespace synergy::sim
