#include "slurm/slurm_executor.h"

#include <algorithm>
#include <climits>

#include "absl/strings/str_cat.h"
#include "service/escape.h"
#include "spdlog/spdlog.h"

namespace synergy::slurm {
namespace {

// A Slurm job id as the process id of a RunningProcess (only logged there).
int32_t PidOf(int64_t slurm_id) { return slurm_id > 0 && slurm_id <= INT32_MAX ? static_cast<int32_t>(slurm_id) : 0; }

v1::ProcessExit ExitOf(const std::string& job_id, int64_t epoch, std::string reason) {
  v1::ProcessExit e;
  e.set_job_id(job_id);
  e.set_epoch(epoch);
  e.set_exit_code(-1);
  e.set_reason(service::EscapeForDisplay(reason, 400));
  return e;
}

// Ends that are Slurm's doing, not the job's: in synergyd's partition only
// synergyd and the cluster's admins cancel or preempt, and a node that
// failed is lost as synergy-node's would be.
bool EndedBySlurm(const std::string& state) {
  return state == "CANCELLED" || state == "PREEMPTED" || state == "NODE_FAIL" || state == "BOOT_FAIL";
}

// How an ended Slurm job exited, as the node protocol reports it. Only
// COMPLETED is a success: Slurm writes 0:0 for a job it ended itself
// (NODE_FAIL, PREEMPTED, DEADLINE), and a FAILED without a code is no
// job's own exit 0 either.
v1::ProcessExit ExitOfEnded(const SlurmJob& job, const std::string& job_id, int64_t epoch, bool stopped) {
  std::string how = job.signal != 0 ? absl::StrCat("killed by signal ", job.signal)
                                    : absl::StrCat("exited with status ", job.exit_code);
  v1::ProcessExit e = ExitOf(job_id, epoch, absl::StrCat("Slurm job ", job.id, " ", job.state, ": ", how));
  e.set_exit_code(job.signal != 0                                     ? -1
                  : job.exit_code != 0 || job.state == "COMPLETED" ? job.exit_code
                                                                   : -1);
  e.set_signal(job.signal);
  e.set_stopped_by_node(stopped || EndedBySlurm(job.state));
  return e;
}

// Whether an ended job's end was synergyd's stop: Slurm took a TERM or a
// cancel for it, and it did not complete with 0 before that (a job that
// finished as the round ended its lease is a success, never run again).
bool EndedByStop(const SlurmJob& job, int64_t signalled_ms) {
  if (signalled_ms <= 0) return false;
  const bool completed = job.state == "COMPLETED" && job.exit_code == 0 && job.signal == 0;
  return !(completed && (job.end_unix_s == 0 || job.end_unix_s * 1000 < signalled_ms));
}

}  // namespace

SlurmExecutor::SlurmExecutor(SlurmExecutorConfig config, SlurmControl& slurm, NodeEndpoint& daemon,
                             IdentityFor identity_for)
    : config_(std::move(config)), slurm_(slurm), daemon_(daemon), identity_for_(std::move(identity_for)) {}

absl::StatusOr<JobIdentity> SlurmExecutor::IdentityOf(const std::string& user) {
  if (auto cached = identity_of_user_.find(user); cached != identity_of_user_.end()) return cached->second;
  absl::StatusOr<JobIdentity> who = identity_for_(user);
  if (who.ok()) identity_of_user_.emplace(user, *who);
  return who;
}

std::optional<int64_t> SlurmExecutor::SlurmJobOf(const std::string& job_id, int64_t epoch) const {
  auto it = submitted_.find({job_id, epoch});
  if (it == submitted_.end() || it->second.slurm_id == 0) return std::nullopt;
  return it->second.slurm_id;
}

std::string SlurmExecutor::NodeOf(const SlurmJob& job) const {
  return job.required_nodes.empty() ? job.nodes : job.required_nodes;
}

bool SlurmExecutor::OwnedByLeaseOwner(const SlurmJob& job, const Key& key) {
  std::optional<std::string> owner = daemon_.OwnerOf(key.first);
  // A job synergyd does not know is reported all the same: synergyd stops
  // processes of leases that are not current.
  if (!owner) return true;
  absl::StatusOr<JobIdentity> who = IdentityOf(*owner);
  return who.ok() && job.user_id == who->uid;
}

SlurmExecutor::Observed SlurmExecutor::Observe(const std::vector<SlurmJob>& jobs) {
  Observed seen;
  for (const SlurmJob& job : jobs) {
    if (job.partition != config_.partition) continue;
    std::optional<LeaseKey> lease = LeaseOfSlurmJobName(job.name);
    if (!lease) continue;
    const Key key{lease->job_id, lease->epoch};
    auto mine = submitted_.find(key);
    const bool submitted_here = mine != submitted_.end() && mine->second.slurm_id == job.id;
    if (!submitted_here && !OwnedByLeaseOwner(job, key)) {
      if (foreign_warned_.insert(job.id).second) {
        spdlog::warn("slurm: job {} is named as lease {} of {} but runs as uid {}, not the job owner's: not synergyd's; "
                     "ignored", job.id, key.second, key.first, job.user_id);
      }
      continue;
    }
    auto [it, fresh] = seen.by_lease.emplace(key, job);
    if (!fresh) {
      // Two Slurm jobs of one lease: the one this executor submitted wins,
      // else the newer. Said, since it should not happen.
      auto mine = submitted_.find(key);
      const bool keep_new = mine != submitted_.end() ? mine->second.slurm_id == job.id : job.id > it->second.id;
      if (foreign_warned_.insert(std::min(job.id, it->second.id)).second) {
        spdlog::warn("slurm: jobs {} and {} are both named as lease {} of {}", it->second.id, job.id, key.second,
                     key.first);
      }
      if (!keep_new) continue;
      it->second = job;
      continue;
    }
    seen.by_node[NodeOf(job)].push_back(key);
  }
  return seen;
}

void SlurmExecutor::QueueExit(const std::string& node, v1::ProcessExit exit) {
  unsent_exits_[node].push_back(std::move(exit));
}

void SlurmExecutor::ForgetVanished(const Observed& seen, int64_t now_ms) {
  for (auto it = submitted_.begin(); it != submitted_.end();) {
    const auto& [key, sub] = *it;
    if (seen.by_lease.count(key) || now_ms - sub.at_ms <= config_.submit_visible_ms) {
      ++it;
      continue;
    }
    v1::ProcessExit e =
        sub.slurm_id != 0
            ? ExitOf(key.first, key.second,
                     absl::StrCat("Slurm job ", sub.slurm_id, " is gone from Slurm's queue (no exit recorded)"))
            : ExitOf(key.first, key.second,
                     absl::StrCat("sbatch: ", sub.unknown_reason, "; no Slurm job of the lease's name appeared"));
    e.set_stopped_by_node(stopping_.count(key) > 0);
    spdlog::warn("slurm: {} lease {} on {}: {}", key.first, key.second, sub.node, e.reason());
    QueueExit(sub.node, std::move(e));
    stopping_.erase(key);
    it = submitted_.erase(it);
  }
}

absl::Status SlurmExecutor::ReadSlurm(int64_t now_ms) {
  absl::StatusOr<std::string> nodes_text = slurm_.NodesJson();
  if (!nodes_text.ok()) return nodes_text.status();
  absl::StatusOr<std::vector<SlurmNode>> nodes = ParseSinfoJson(*nodes_text, config_.partition);
  if (!nodes.ok()) return nodes.status();
  absl::StatusOr<std::string> jobs_text = slurm_.JobsJson();
  if (!jobs_text.ok()) return jobs_text.status();
  absl::StatusOr<std::vector<SlurmJob>> jobs = ParseSqueueJson(*jobs_text, config_.partition);
  if (!jobs.ok()) return jobs.status();
  last_nodes_ = *std::move(nodes);
  last_jobs_ = *std::move(jobs);
  last_read_ms_ = now_ms;
  return absl::OkStatus();
}

bool SlurmExecutor::InFlight(const Observed& seen) const {
  if (!stopping_.empty() || !unsent_exits_.empty()) return true;
  for (const auto& [key, sub] : submitted_) {
    auto found = seen.by_lease.find(key);
    if (sub.slurm_id == 0 || found == seen.by_lease.end() || found->second.phase != JobPhase::kRunning) return true;
  }
  return false;
}

absl::Status SlurmExecutor::Step(int64_t now_ms) {
  const bool due = read_next_ || last_read_ms_ < 0 || now_ms - last_read_ms_ >= config_.read_interval_ms;
  const absl::Status read = due ? ReadSlurm(now_ms) : absl::OkStatus();
  if (due) ++reads_;
  // Slurm unreadable (slurmctld restarting): its jobs run on. Nodes are
  // heartbeat as last seen, for up to stale_limit_ms, so that synergyd does
  // not lose them and stop every job when Slurm answers again; nothing is
  // taken for gone meanwhile. A step that does not read goes on the last
  // read the same way.
  const bool stale = !due || !read.ok();
  if (!read.ok() && (last_read_ms_ < 0 || now_ms - last_read_ms_ > config_.stale_limit_ms)) return read;
  const std::vector<SlurmNode>& nodes = last_nodes_;
  const std::vector<SlurmJob>& jobs = last_jobs_;

  const Observed seen = Observe(jobs);
  // A submission whose answer was lost is the job Slurm lists by its name.
  for (auto& [key, sub] : submitted_) {
    auto found = seen.by_lease.find(key);
    if (sub.slurm_id == 0 && found != seen.by_lease.end()) {
      sub.slurm_id = found->second.id;
      spdlog::info("slurm: {} lease {}: found as Slurm job {} after sbatch's answer was lost", key.first, key.second,
                   sub.slurm_id);
    }
  }
  if (!stale) {
    ForgetVanished(seen, now_ms);
    CancelLongPending(seen, now_ms);
  }
  orders_given_ = false;
  // Stops ordered while Slurm's view was old: signalled now it is new.
  if (!stale) {
    for (auto& [key, stopping] : stopping_) {
      if (!stopping.delivered && !stopping.cancelled) DeliverStop(key, stopping, seen, now_ms);
    }
  }
  for (const SlurmNode& node : nodes) ServeNode(node, seen, now_ms, !stale);
  CancelOverdue(seen, now_ms);
  read_next_ = orders_given_ || InFlight(seen);
  if (stale) return read;

  // What Slurm no longer lists needs no memory here.
  std::set<std::string> in_partition;
  for (const SlurmNode& node : nodes) in_partition.insert(node.name);
  for (auto it = registered_.begin(); it != registered_.end();) {
    it = in_partition.count(it->first) ? std::next(it) : registered_.erase(it);
  }
  for (auto* by_node : {&foreign_seen_, &foreign_said_}) {
    for (auto it = by_node->begin(); it != by_node->end();) {
      it = in_partition.count(it->first) ? std::next(it) : by_node->erase(it);
    }
  }
  std::set<int64_t> listed;
  for (const SlurmJob& job : jobs) listed.insert(job.id);
  for (auto it = told_.begin(); it != told_.end();) it = listed.count(*it) ? std::next(it) : told_.erase(it);
  for (auto it = foreign_warned_.begin(); it != foreign_warned_.end();) {
    it = listed.count(*it) ? std::next(it) : foreign_warned_.erase(it);
  }
  return absl::OkStatus();
}

v1::ForeignUse SlurmExecutor::ForeignOn(const SlurmNode& node, const Observed& seen, bool fresh) {
  // Slurm's allocation on the node less what this executor's jobs there
  // hold: jobs of other users and partitions.
  SlurmResources ours;
  if (auto here = seen.by_node.find(node.name); here != seen.by_node.end()) {
    for (const Key& key : here->second) {
      const SlurmJob& job = seen.by_lease.at(key);
      if (job.phase != JobPhase::kRunning) continue;
      ours.gpus += job.holds.gpus;
      ours.cpus += job.holds.cpus;
      ours.memory_mb += job.holds.memory_mb;
    }
  }
  const SlurmResources now{std::max(0, node.allocated.gpus - ours.gpus), std::max(0, node.allocated.cpus - ours.cpus),
                           std::max<int64_t>(0, node.allocated.memory_mb - ours.memory_mb)};
  // sinfo and squeue are read one after the other: a job of ours that
  // started or ended between them looks foreign, or hides a foreign one,
  // for one read. What is foreign grows at once and shrinks only once two
  // reads agree, so that such a read never frees what another job holds.
  auto [before, first] = foreign_seen_.try_emplace(node.name, now);
  const SlurmResources last = before->second;
  if (fresh) before->second = now;
  const SlurmResources counted = first ? now
                                       : SlurmResources{std::max(now.gpus, last.gpus), std::max(now.cpus, last.cpus),
                                                        std::max(now.memory_mb, last.memory_mb)};
  SlurmResources& said = foreign_said_[node.name];  // none, until said
  if (!(said == counted)) {
    spdlog::info("slurm: node {}: Slurm jobs that are not synergyd's hold {} GPUs, {} CPUs, {} MB there; planned "
                 "around", node.name, counted.gpus, counted.cpus, counted.memory_mb);
    said = counted;
  }
  v1::ForeignUse use;
  use.set_gpus(counted.gpus);
  use.set_cpus(counted.cpus);
  use.set_mem_gb(static_cast<double>(counted.memory_mb) / 1024);
  return use;
}

bool SlurmExecutor::Served(const SlurmNode& node, const Observed& seen) const {
  // A node down (or not responding) gets no heartbeat: synergyd loses it
  // after its timeout, as a silent synergy-node. A drained one is served
  // while registered or while its lease jobs run (after a restart), to
  // leave. Jobs still to report: alive, or ended with an exit not yet
  // told. (An ended job Slurm lists for MinJobAge is no reason to serve a
  // drained node: that registered it again every step, to leave again.)
  if (node.usable) return true;
  if (!node.drained) return false;
  if (registered_.count(node.name)) return true;
  auto here = seen.by_node.find(node.name);
  if (here == seen.by_node.end()) return false;
  for (const Key& key : here->second) {
    const SlurmJob& job = seen.by_lease.at(key);
    if (job.phase != JobPhase::kEnded || !told_.count(job.id)) return true;
  }
  return false;
}

SlurmExecutor::Beat SlurmExecutor::BeatOf(const SlurmNode& node, const Observed& seen) {
  Beat out;
  v1::HeartbeatRequest& beat = out.request;
  beat.set_name(node.name);
  beat.set_leaving(node.drained);
  std::set<Key> reported;
  if (auto here = seen.by_node.find(node.name); here != seen.by_node.end()) {
    for (const Key& key : here->second) {
      const SlurmJob& job = seen.by_lease.at(key);
      reported.insert(key);
      if (job.phase != JobPhase::kEnded) {
        v1::RunningProcess* p = beat.add_running();
        p->set_job_id(key.first);
        p->set_epoch(key.second);
        p->set_pid(PidOf(job.id));
        p->set_queued(job.phase == JobPhase::kPending);  // in Slurm's queue: not started
      } else if (!told_.count(job.id)) {
        auto stop = stopping_.find(key);
        *beat.add_exits() =
            ExitOfEnded(job, key.first, key.second, stop != stopping_.end() && EndedByStop(job, stop->second.signalled_ms));
        out.ended.emplace_back(key, job.id);
      }
    }
  }
  // Just submitted, not listed yet: taken, not started.
  for (const auto& [key, sub] : submitted_) {
    if (sub.node != node.name || reported.count(key) || seen.by_lease.count(key)) continue;
    v1::RunningProcess* p = beat.add_running();
    p->set_job_id(key.first);
    p->set_epoch(key.second);
    p->set_pid(PidOf(sub.slurm_id));
    p->set_queued(true);
  }
  if (auto unsent = unsent_exits_.find(node.name); unsent != unsent_exits_.end()) {
    out.unsent = unsent->second.size();
    for (const v1::ProcessExit& e : unsent->second) *beat.add_exits() = e;
  }
  return out;
}

bool SlurmExecutor::Registered(const SlurmNode& node, const v1::HeartbeatRequest& beat) {
  const std::string& name = node.name;
  const v1::NodeResources resources = ResourcesOfSlurmNode(node);
  if (auto known = registered_.find(name);
      known != registered_.end() && known->second.SerializeAsString() != resources.SerializeAsString()) {
    spdlog::info("slurm: node {}: Slurm reports {} GPUs, {} CPUs, {:.1f} GB (was {}, {}, {:.1f}): registering it again",
                 name, resources.gpu_ids_size(), resources.cpu_ids_size(), resources.mem_gb(),
                 known->second.gpu_ids_size(), known->second.cpu_ids_size(), known->second.mem_gb());
    registered_.erase(known);
  }
  if (registered_.count(name)) return true;
  v1::RegisterNodeRequest reg;
  reg.set_name(name);
  reg.set_address(node.address.empty() ? name : node.address);
  *reg.mutable_resources() = resources;
  reg.set_cgroups(absl::StrCat("slurm (partition ", config_.partition, ")"));
  *reg.mutable_running() = beat.running();
  *reg.mutable_foreign() = beat.foreign();
  absl::StatusOr<v1::RegisterNodeResponse> registered = daemon_.Register(reg);
  if (!registered.ok()) {
    spdlog::warn("slurm: node {}: registration refused: {}", name, std::string(registered.status().message()));
    return false;
  }
  registered_[name] = resources;
  return true;
}

void SlurmExecutor::ServeNode(const SlurmNode& node, const Observed& seen, int64_t now_ms, bool fresh) {
  const std::string& name = node.name;
  if (!Served(node, seen)) return;
  Beat beat = BeatOf(node, seen);
  *beat.request.mutable_foreign() = ForeignOn(node, seen, fresh);
  if (!Registered(node, beat.request)) return;
  absl::StatusOr<v1::HeartbeatResponse> reply = daemon_.Heartbeat(beat.request);
  if (!reply.ok()) {
    spdlog::warn("slurm: node {}: heartbeat refused: {}", name, std::string(reply.status().message()));
    return;
  }
  if (reply->reregister()) {
    registered_.erase(name);  // the next step registers it, then tells its exits
    return;
  }
  for (const auto& [key, slurm_id] : beat.ended) {
    told_.insert(slurm_id);
    submitted_.erase(key);
    stopping_.erase(key);
  }
  if (auto unsent = unsent_exits_.find(name); unsent != unsent_exits_.end()) {
    // Exits queued while this heartbeat was built stay for the next.
    unsent->second.erase(unsent->second.begin(), unsent->second.begin() + static_cast<long>(beat.unsent));
    if (unsent->second.empty()) unsent_exits_.erase(unsent);
  }
  if (reply->stop_size() > 0 || reply->launch_size() > 0) orders_given_ = true;
  for (const v1::StopOrder& stop : reply->stop()) Stop(stop, seen, now_ms, fresh);
  for (const v1::LaunchOrder& launch : reply->launch()) Launch(launch, name, seen, now_ms);
  if (reply->resize_size() > 0 && !resize_warned_) {
    resize_warned_ = true;
    spdlog::warn("slurm: synergyd asked to resize a running job in place, which Slurm cannot do: ignored");
  }
}

void SlurmExecutor::Launch(const v1::LaunchOrder& order, const std::string& node, const Observed& seen,
                           int64_t now_ms) {
  const Key key{order.job_id(), order.epoch()};
  if (submitted_.count(key)) return;
  if (auto found = seen.by_lease.find(key); found != seen.by_lease.end()) {
    submitted_[key] = {found->second.id, node, now_ms, ""};
    spdlog::info("slurm: {} lease {} is Slurm job {} already: not submitted again", key.first, key.second,
                 found->second.id);
    return;
  }
  auto refuse = [&](const std::string& why) {
    v1::ProcessExit e = ExitOf(key.first, key.second, why);
    e.set_launch_refused(true);
    spdlog::warn("slurm: {} lease {} on {}: not launched: {}", key.first, key.second, node, why);
    QueueExit(node, std::move(e));
  };
  absl::StatusOr<JobIdentity> who = IdentityOf(order.user());
  if (!who.ok()) return refuse(std::string(who.status().message()));
  v1::LaunchOrder with_env = order;
  for (const auto& [name, value] : config_.default_env) with_env.mutable_env()->insert({name, value});
  for (const auto& [name, value] : config_.agent_env) (*with_env.mutable_env())[name] = value;
  absl::StatusOr<SbatchCall> call = SbatchFor(with_env, node, *who, config_.sbatch);
  if (!call.ok()) return refuse(std::string(call.status().message()));
  if (absl::Status folders = config_.make_output_folders(config_.sbatch.log_dir, *who, node); !folders.ok()) {
    return refuse(std::string(folders.message()));
  }
  absl::StatusOr<int64_t> id = slurm_.Submit(*call);
  if (id.ok()) {
    submitted_[key] = {*id, node, now_ms, ""};
    spdlog::info("slurm: {} lease {} submitted to {} as Slurm job {}", key.first, key.second, node, *id);
    return;
  }
  if (id.status().code() == absl::StatusCode::kUnavailable ||
      id.status().code() == absl::StatusCode::kDeadlineExceeded) {
    // Slurm may have it: looked for by name before anything else is done.
    submitted_[key] = {0, node, now_ms, std::string(id.status().message())};
    spdlog::warn("slurm: {} lease {}: sbatch's answer was lost ({}); looking for it by name", key.first, key.second,
                 std::string(id.status().message()));
    return;
  }
  // Slurm refused it now (a node that changed, a full queue): a crash, so
  // the job is retried within its retries.
  v1::ProcessExit e = ExitOf(key.first, key.second, absl::StrCat("Slurm refused it: ", std::string(id.status().message())));
  spdlog::warn("slurm: {} lease {} on {}: {}", key.first, key.second, node, e.reason());
  QueueExit(node, std::move(e));
}

void SlurmExecutor::Stop(const v1::StopOrder& order, const Observed& seen, int64_t now_ms, bool fresh) {
  const Key key{order.job_id(), order.epoch()};
  const int64_t kill_at = now_ms + std::max<int64_t>(0, order.grace_ms());
  if (auto it = stopping_.find(key); it != stopping_.end()) {
    it->second.kill_at_ms = std::min(it->second.kill_at_ms, kill_at);  // stopping again only shortens it
    return;
  }
  // Ended before the order: its own end, told as it was.
  if (auto found = seen.by_lease.find(key); found != seen.by_lease.end() && found->second.phase == JobPhase::kEnded) {
    return;
  }
  stopping_[key].kill_at_ms = kill_at;
  // What Slurm said before may be old: a job that ended since would answer
  // "already completed". The signal waits for the next read (at once: a
  // stop in flight makes the next step read).
  if (fresh) DeliverStop(key, stopping_[key], seen, now_ms);
}

void SlurmExecutor::DeliverStop(const Key& key, Stopping& stopping, const Observed& seen, int64_t now_ms) {
  auto found = seen.by_lease.find(key);
  // Not listed (yet, or any more): nothing is sent to a job Slurm does not
  // list ("Invalid job id"); cancelled once listed and overdue, or told as
  // gone after submit_visible_ms. Ended: its own end.
  if (found == seen.by_lease.end() || found->second.phase == JobPhase::kEnded) return;
  stopping.delivered = true;
  const int64_t id = found->second.id;
  if (found->second.phase == JobPhase::kPending) {
    // Nothing of it runs yet: nothing to give time to.
    if (absl::Status st = slurm_.Cancel(id); st.ok()) {
      stopping.cancelled = true;
      stopping.signalled_ms = now_ms;
    } else {
      spdlog::warn("slurm: cancelling job {} ({} lease {}): {}", id, key.first, key.second, std::string(st.message()));
    }
    return;
  }
  if (absl::Status st = slurm_.Signal(id, "TERM"); st.ok()) {
    stopping.signalled_ms = now_ms;
  } else {
    spdlog::warn("slurm: SIGTERM to job {} ({} lease {}): {}; cancelled after its grace", id, key.first, key.second,
                 std::string(st.message()));
  }
}

void SlurmExecutor::CancelLongPending(const Observed& seen, int64_t now_ms) {
  for (auto& [key, sub] : submitted_) {
    auto found = seen.by_lease.find(key);
    if (found == seen.by_lease.end() || found->second.phase != JobPhase::kPending) continue;
    if (now_ms - sub.at_ms <= config_.max_pending_ms || stopping_.count(key)) continue;
    // synergyd planned it to fit; Slurm disagrees (a node shared with
    // another partition, memory Slurm keeps back): its resources would be
    // held for nothing. Cancelled: its end is told as stopped, and the job
    // waits for another lease.
    spdlog::warn("slurm: {} lease {}: Slurm job {} still waits on {} after {} s; cancelled (does Slurm's view of "
                 "the node differ from synergyd's?)", key.first, key.second, found->second.id, sub.node,
                 (now_ms - sub.at_ms) / 1000);
    if (slurm_.Cancel(found->second.id).ok()) stopping_[key] = {now_ms, true, now_ms, true};
  }
}

void SlurmExecutor::CancelOverdue(const Observed& seen, int64_t now_ms) {
  for (auto it = stopping_.begin(); it != stopping_.end();) {
    auto& [key, stopping] = *it;
    auto found = seen.by_lease.find(key);
    auto mine = submitted_.find(key);
    if (found == seen.by_lease.end() && mine == submitted_.end()) {
      it = stopping_.erase(it);  // nothing of it is known: nothing to stop
      continue;
    }
    // Only a job squeue lists as alive is cancelled: one it no longer lists
    // is over (its end, or its vanishing, is told in its own time).
    const bool alive = found != seen.by_lease.end() && found->second.phase != JobPhase::kEnded;
    const int64_t id = alive ? found->second.id : 0;
    if (!stopping.cancelled && alive && now_ms >= stopping.kill_at_ms) {
      if (absl::Status st = slurm_.Cancel(id); st.ok()) {
        stopping.cancelled = true;
        if (stopping.signalled_ms == 0) stopping.signalled_ms = now_ms;
        spdlog::info("slurm: {} lease {}: Slurm job {} did not stop within its grace: cancelled", key.first,
                     key.second, id);
      } else {
        spdlog::warn("slurm: cancelling job {} ({} lease {}): {}", id, key.first, key.second, std::string(st.message()));
      }
    }
    ++it;
  }
}

}  // namespace synergy::slurm
