#include "synergy/agent.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

#include "client.h"
#include "cpu_time_limit.h"

namespace synergy::agent {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void Log(const LeaseInfo& lease, const std::string& what) {
  std::cerr << "synergy-agent " << lease.job_id << " lease " << lease.epoch << " rank " << lease.rank << ": "
            << what << std::endl;
}

}  // namespace

struct Agent::Reporter {
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  std::chrono::steady_clock::time_point window_start = std::chrono::steady_clock::now();
  int64_t window_iteration = 0;
  double throughput = 0;
  bool stop_announced = false;
  // Asked to report before the interval is up (a resize was applied). Set
  // without `mu`, which the reporter holds during its call: a wakeup lost
  // to the race only delays the confirmation to the next interval.
  std::atomic<bool> report_soon{false};
  // The latest allocation heard of (guarded by resize_mu: the training
  // thread takes it while the reporter may be in a call).
  std::mutex resize_mu;
  Allocation heard;
  // A rank > 0 that heard "lease ending" before rank 0's stop iteration
  // reached synergyd asks again soon, not a whole interval later.
  bool awaiting_stop = false;
};

std::unique_ptr<Agent> Agent::FromEnvironment(AgentOptions options) {
  LeaseInfo lease;
  lease.job_id = Env("SYNERGY_JOB_ID");
  lease.scheduler = Env("SYNERGY_SCHEDULER");
  lease.credential = Env("SYNERGY_AGENT_TOKEN");
  lease.tls_ca = Env("SYNERGY_TLS_CA");
  lease.tls_server_name = Env("SYNERGY_TLS_SERVER_NAME");
  lease.plaintext = Env("SYNERGY_PLAINTEXT") == "1";
  lease.epoch = std::atoll(Env("SYNERGY_LEASE_EPOCH").c_str());
  lease.rank = std::atoi(Env("SYNERGY_RANK").c_str());
  const int world = std::atoi(Env("SYNERGY_WORLD_SIZE").c_str());
  lease.world_size = world > 0 ? world : 1;
  lease.cpus = std::atoi(Env("SYNERGY_CPUS").c_str());
  lease.mem_gb = std::atof(Env("SYNERGY_MEM_GB").c_str());
  lease.total_iterations = std::atoll(Env("SYNERGY_ITERATIONS").c_str());
  lease.profiling = Env("SYNERGY_PROFILING") == "1";
  return Connect(lease, options);
}

std::unique_ptr<Agent> Agent::Connect(const LeaseInfo& lease, AgentOptions options) {
  std::unique_ptr<Agent> agent(new Agent(lease, options));
  if (lease.job_id.empty()) return agent;  // standalone
  auto client = Client::Open(lease);
  if (!client.ok()) {
    Log(lease, "cannot reach the scheduler: " + std::string(client.status().message()));
    std::exit(3);
  }
  agent->client_ = std::move(*client);
  v1::AgentHello hello;
  hello.set_job_id(lease.job_id);
  hello.set_epoch(lease.epoch);
  hello.set_rank(lease.rank);
  v1::AgentWelcome welcome;
  const grpc::Status st = agent->client_->Register(hello, &welcome);
  if (!st.ok()) {
    Log(lease, "registration refused: " + st.error_message());
    // A stale lease must not run beside the current one; an unreachable
    // scheduler cannot tell us where to resume.
    std::exit(3);
  }
  agent->start_iteration_ = welcome.resume_iteration();
  agent->checkpoint_path_ = welcome.checkpoint_path();
  agent->lease_.total_iterations = welcome.total_iterations();
  if (welcome.cpu_ids_size() > 0) agent->lease_.cpus = welcome.cpu_ids_size();
  if (welcome.mem_gb() > 0) agent->lease_.mem_gb = welcome.mem_gb();
  agent->iteration_.store(agent->start_iteration_);
  agent->StartReporter();
  return agent;
}

Agent::Agent(LeaseInfo lease, AgentOptions options) : lease_(std::move(lease)), options_(options) {}

Agent::~Agent() {
  stop_reporter_ = true;
  if (reporter_) {
    reporter_->cv.notify_all();
    if (reporter_->thread.joinable()) reporter_->thread.join();
  }
}

void Agent::StartReporter() {
  reporter_ = std::make_unique<Reporter>();
  reporter_->window_iteration = start_iteration_;
  reporter_->thread = std::thread([this] {
    std::unique_lock lock(reporter_->mu);
    while (!stop_reporter_) {
      const int wait_ms = reporter_->awaiting_stop ? std::min(100, options_.report_interval_ms)
                                                   : options_.report_interval_ms;
      reporter_->cv.wait_for(lock, std::chrono::milliseconds(wait_ms),
                             [this] { return stop_reporter_.load() || reporter_->report_soon; });
      if (stop_reporter_) break;
      reporter_->report_soon.store(false);
      Report();
    }
  });
}

void Agent::Report() {
  Reporter& r = *reporter_;
  const auto now = std::chrono::steady_clock::now();
  const int64_t done = iteration_.load(std::memory_order_relaxed);
  const double secs = std::chrono::duration<double>(now - r.window_start).count();
  if (secs > 0 && done > r.window_iteration) r.throughput = (done - r.window_iteration) / secs;
  r.window_start = now;
  r.window_iteration = done;
  v1::ProgressReport report;
  report.set_job_id(lease_.job_id);
  report.set_epoch(lease_.epoch);
  report.set_iterations_done(done);
  report.set_throughput(r.throughput);
  report.set_rank(lease_.rank);
  const int64_t stop_at = stop_at_.load();
  if (lease_.rank == 0 && stop_at != INT64_MAX) report.set_stop_at_iteration(stop_at);
  report.set_can_resize(can_resize_.load());
  report.set_applied_revision(applied_revision_.load());
  v1::ProgressReply reply;
  const grpc::Status st = client_->Report(report, &reply);
  if (!st.ok()) {
    if (st.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
      // Our lease is gone and another copy may run: stop at once, no
      // checkpoint (it would race the current lease's).
      Log(lease_, st.error_message());
      std::_Exit(3);
    }
    return;  // unavailable: keep training, report again later
  }
  if (reply.revision() > 0 && can_resize_.load() && !reply.lease_ending()) {
    std::lock_guard<std::mutex> resize_lock(r.resize_mu);
    if (reply.revision() > std::max(r.heard.revision, applied_revision_.load())) {
      r.heard.revision = reply.revision();
      r.heard.cpu_ids.assign(reply.cpu_ids().begin(), reply.cpu_ids().end());
      r.heard.cpus = reply.cpu_ids_size();
      r.heard.mem_gb = reply.mem_gb();
      resize_pending_.store(true, std::memory_order_relaxed);
    }
  }
  if (!reply.lease_ending() || stop_at != INT64_MAX) return;
  if (lease_.rank == 0) {
    // Rank 0 picks the stop iteration: here for one process; for many, a
    // little over one report interval ahead, so that every rank hears of
    // it (at its next report) before reaching it, and well inside the
    // daemon's grace before it stops the processes.
    int64_t margin = 0;
    if (lease_.world_size > 1) {
      margin = 1 + static_cast<int64_t>(r.throughput * 1.25 * options_.report_interval_ms / 1000.0);
    }
    stop_at_.store(done + margin);
    report.set_stop_at_iteration(done + margin);
    if (lease_.world_size > 1) client_->Report(report, &reply);
  } else if (reply.stop_at_iteration() > 0) {
    stop_at_.store(reply.stop_at_iteration());
    r.awaiting_stop = false;
  } else {
    r.awaiting_stop = true;
  }
}

void Agent::OnResize(std::function<void(const Allocation&)> apply) {
  resize_ = std::move(apply);
  can_resize_.store(static_cast<bool>(resize_));
  // Said at once, not a report interval later: until synergyd knows, a
  // round that re-sizes the job ends its lease.
  if (reporter_) {
    reporter_->report_soon.store(true);
    reporter_->cv.notify_all();
  }
}

void Agent::ApplyResize() {
  resize_pending_.store(false, std::memory_order_relaxed);
  Allocation next;
  {
    std::lock_guard<std::mutex> lock(reporter_->resize_mu);
    next = reporter_->heard;
  }
  if (next.revision <= applied_revision_.load() || !resize_) return;
  const LeaseInfo before = lease_;
  lease_.cpus = next.cpus;
  lease_.mem_gb = next.mem_gb;
  try {
    resize_(next);
  } catch (...) {
    // Not applied (a Python callback raised, say): not confirmed, and tried
    // again at the next step if the caller goes on.
    lease_ = before;
    resize_pending_.store(true, std::memory_order_relaxed);
    throw;
  }
  applied_revision_.store(next.revision);
  Log(lease_, "resized in place (revision " + std::to_string(next.revision) + "): " + std::to_string(next.cpus) +
                  " cpus, " + std::to_string(next.mem_gb) + " GB");
  reporter_->report_soon.store(true);
  reporter_->cv.notify_all();
}

bool Agent::Count() {
  const int64_t i = iteration_.load(std::memory_order_relaxed) + 1;
  iteration_.store(i, std::memory_order_relaxed);
  if (i >= stop_at_.load(std::memory_order_relaxed)) {
    EndLease();
    return false;
  }
  return lease_.total_iterations <= 0 || i < lease_.total_iterations;
}

void Agent::EndLease() {
  if (lease_ended_) return;
  lease_ended_ = true;
  stop_reporter_ = true;
  reporter_->cv.notify_all();
  if (reporter_->thread.joinable()) reporter_->thread.join();
  const int64_t i = iteration_.load();
  if (lease_.rank == 0) {
    const std::string path = save_ ? save_(i) : "";
    v1::CheckpointDone done;
    done.set_job_id(lease_.job_id);
    done.set_epoch(lease_.epoch);
    done.set_iteration(i);
    done.set_path(path);
    const grpc::Status st = client_->Confirm(done);
    if (!st.ok()) Log(lease_, "checkpoint at " + std::to_string(i) + " not confirmed: " + st.error_message());
    Log(lease_, "lease ended: checkpoint at iteration " + std::to_string(i) + (path.empty() ? "" : " in " + path));
  } else {
    Log(lease_, "lease ended: stopped at iteration " + std::to_string(i) + " (rank 0 checkpoints)");
  }
  if (options_.exit_on_lease_end) std::exit(0);
}

namespace {

// The CPUs this thread may run on, in order.
std::vector<int> AllowedCpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int i = 0; i < CPU_SETSIZE; ++i) {
    if (CPU_ISSET(i, &set)) cpus.push_back(i);
  }
  return cpus;
}

bool Pin(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

// The CPU x memory matrix (Matrix) over the measured CPU points and
// `mem_points_gb`, as the profile message synergyd stores (an unbounded
// throughput is sent as 0: unmeasured).
void AddMatrixPoints(const CpuProfile& cpu, const MemoryModel& memory, const std::vector<double>& mem_points_gb,
                     v1::MeasuredProfile& profile) {
  std::vector<double> cpu_points;
  for (const CpuPoint& p : cpu.measured) cpu_points.push_back(p.cpus);
  std::sort(cpu_points.begin(), cpu_points.end());
  for (const MatrixPoint& m : Matrix(cpu, memory, cpu_points, mem_points_gb)) {
    v1::ProfilePoint* p = profile.add_points();
    p->set_cpus(m.cpus);
    p->set_mem_gb(m.mem_gb);
    p->set_throughput(std::isinf(m.throughput) ? 0 : m.throughput);
  }
}

}  // namespace

CpuProfile Agent::Profile(const std::function<double(int, int)>& measure, const MemoryModel& memory,
                          std::vector<double> mem_points_gb, const ProfilerOptions& options) {
  // A point of k CPUs is measured on k CPUs: the calling thread (and the
  // data workers `measure` starts, which inherit it) is pinned to the first
  // ceil(k x cores per CPU) of the CPUs it may use. A node with CPU slots
  // says what one CPU is worth (SYNERGY_CORES_PER_CPU); else it is a core.
  // There a slot is CPU time, not a core, and the node lets the profiling
  // lease set its own limit: k slots get k x cores per CPU of CPU time.
  const std::vector<int> allowed = AllowedCpus();
  double cores_per_cpu = std::atof(Env("SYNERGY_CORES_PER_CPU").c_str());
  if (!(cores_per_cpu > 0)) cores_per_cpu = 1;
  bool pinning = !allowed.empty();
  CpuTimeLimit limit = managed() ? CpuTimeLimit::FromEnvironment() : CpuTimeLimit();
  auto measure_pinned = [&](int cpus, int iterations) {
    const size_t cores = std::clamp<size_t>(static_cast<size_t>(std::ceil(cpus * cores_per_cpu - 1e-9)), 1,
                                            std::max<size_t>(1, allowed.size()));
    if (pinning && !Pin(std::vector<int>(allowed.begin(), allowed.begin() + cores))) {
      Log(lease_, "profiling unpinned: sched_setaffinity failed");
      pinning = false;
    }
    if (limit.available()) {
      if (const std::string problem = limit.Set(cpus * cores_per_cpu); !problem.empty()) {
        Log(lease_, "profiling without a CPU-time limit per point: " + problem);
        limit = CpuTimeLimit();
      }
    }
    const double t = measure(cpus, iterations);
    if (pinning) Pin(allowed);
    return t;
  };
  // Standalone: SYNERGY_CPUS if set, else the machine's CPUs.
  const int max_cpus =
      std::max(1, lease_.cpus > 0 ? lease_.cpus : static_cast<int>(std::thread::hardware_concurrency()));
  const auto start = std::chrono::steady_clock::now();
  CpuProfile cpu = ProfileCpus(max_cpus, measure_pinned, options);
  if (!managed()) return cpu;
  if (limit.available()) {
    // The lease's own limit again, for the iterations until it ends.
    if (const std::string problem = limit.Set(lease_.cpus * cores_per_cpu); !problem.empty()) Log(lease_, problem);
  }
  if (mem_points_gb.empty()) {
    for (double f : {0.25, 0.5, 0.75, 1.0}) mem_points_gb.push_back(f * lease_.mem_gb);
  }
  v1::MeasuredProfile profile;
  profile.set_job_id(lease_.job_id);
  profile.set_epoch(lease_.epoch);
  profile.set_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  AddMatrixPoints(cpu, memory, mem_points_gb, profile);
  const grpc::Status st = client_->SubmitProfile(profile);
  Log(lease_, st.ok() ? "profile sent: " + std::to_string(cpu.measured.size()) + " CPU points, knee " +
                            std::to_string(cpu.knee)
                      : "profile refused: " + st.error_message());
  return cpu;
}

void Agent::Finish() {
  if (!managed() || finished_ || lease_ended_) return;
  finished_ = true;
  stop_reporter_ = true;
  reporter_->cv.notify_all();
  if (reporter_->thread.joinable()) reporter_->thread.join();
  if (lease_.rank != 0) return;
  const int64_t i = iteration_.load();
  const std::string path = save_ ? save_(i) : "";
  v1::CheckpointDone done;
  done.set_job_id(lease_.job_id);
  done.set_epoch(lease_.epoch);
  done.set_iteration(i);
  done.set_path(path);
  done.set_finished(true);
  const grpc::Status st = client_->Confirm(done);
  if (!st.ok()) Log(lease_, "final checkpoint not confirmed: " + st.error_message());
}

}  // namespace synergy::agent
