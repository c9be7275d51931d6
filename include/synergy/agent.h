#pragma once
// libsynergy_agent: what a training job links to be scheduled by Synergy.
//
//   auto agent = synergy::agent::Agent::FromEnvironment();
//   agent->OnCheckpoint([&](int64_t iteration) { return SaveModel(iteration); });
//   Restore(agent->checkpoint_path(), agent->start_iteration());
//   for (auto& batch : agent->wrap(loader)) Train(batch);
//   agent->Finish();
//
// The wrapper counts iterations and stops the loop at an iteration boundary
// when the lease ends: it then runs the checkpoint callback, confirms the
// checkpoint to synergyd and (by default) exits the process with status 0.
// Progress is reported by a background thread, so the loop never waits on
// the network; one iteration costs three relaxed atomic operations.
//
// Without SYNERGY_JOB_ID in the environment (no scheduler started the job)
// the agent is standalone: wrap() passes batches through, Finish() and the
// callback do nothing, so the same binary runs on a laptop.
//
// Distributed jobs: every rank runs an agent; rank 0 decides the iteration
// at which all ranks stop (announced through synergyd), so they all
// checkpoint the same step.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "synergy/agent_profiler.h"

namespace synergy::agent {

struct AgentOptions {
  int report_interval_ms = 1000;  // progress reports (and lease checks)
  bool exit_on_lease_end = true;  // std::exit(0) after the checkpoint is confirmed
};

// The lease this process runs under, from the SYNERGY_* environment.
struct LeaseInfo {
  std::string scheduler;
  // The lease's own credential (SYNERGY_AGENT_TOKEN), sent with every call.
  std::string credential;
  // How to reach synergyd: TLS verified against tls_ca (SYNERGY_TLS_CA; ""
  // = the system's roots), with tls_server_name (SYNERGY_TLS_SERVER_NAME)
  // when the certificate names another host; or plain text
  // (SYNERGY_PLAINTEXT=1), which is refused to a non-loopback scheduler.
  std::string tls_ca;
  std::string tls_server_name;
  bool plaintext = false;
  std::string job_id;
  int64_t epoch = 0;
  int rank = 0;
  int world_size = 1;
  int cpus = 0;
  double mem_gb = 0;
  int64_t total_iterations = 0;
  bool profiling = false;  // a profiling lease: call Profile()
};

// A lease's allocation after a resize in place: the same GPUs and node,
// other CPUs or memory.
struct Allocation {
  int64_t revision = 0;      // increases with every resize of the lease
  std::vector<int> cpu_ids;  // the lease's CPU ids (slot numbers on a node with CPU slots)
  int cpus = 0;              // how many: the data workers the job may run
  double mem_gb = 0;
};

class Client;  // the gRPC side (agent/client.h)

class Agent {
 public:
  // Reads the environment; connects and registers when SYNERGY_JOB_ID is
  // set. A refused registration (a stale lease) exits with status 3: this
  // process must not run beside the current one.
  static std::unique_ptr<Agent> FromEnvironment(AgentOptions options = {});
  // For tests: an agent for `lease` (connected when job_id is not empty).
  static std::unique_ptr<Agent> Connect(const LeaseInfo& lease, AgentOptions options = {});
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  bool managed() const { return client_ != nullptr; }
  const LeaseInfo& lease() const { return lease_; }
  // Where to resume: the last confirmed checkpoint (0 and "" when none).
  int64_t start_iteration() const { return start_iteration_; }
  const std::string& checkpoint_path() const { return checkpoint_path_; }
  int64_t iteration() const { return iteration_.load(std::memory_order_relaxed); }

  // Saves the job's state at `iteration` and returns the path written
  // (write, then rename, so a crash mid-save keeps the last good one).
  void OnCheckpoint(std::function<std::string(int64_t iteration)> save) { save_ = std::move(save); }

  // Resize in place: synergyd may change this lease's CPUs and memory while
  // the job runs, instead of ending it, once the job says it follows them
  // by setting this callback. It is called on the training thread inside
  // Step(), at an iteration boundary, after the node has changed the
  // job's confinement; when it returns the job must fit the new
  // allocation (e.g. its data loader has shed or started workers), and
  // the agent confirms it: synergyd lowers a smaller memory limit only
  // then (or after the lease's grace). lease().cpus and lease().mem_gb
  // follow. Without it, a change of CPUs or memory ends the lease as
  // before. Standalone it is never called.
  void OnResize(std::function<void(const Allocation&)> apply);

  // One iteration done. False when the loop must stop here: the lease ends
  // at this boundary (the checkpoint has then been taken and confirmed) or
  // the job's iterations are all done.
  bool Step() {
    if (resize_pending_.load(std::memory_order_relaxed)) ApplyResize();
    return Count();
  }
  bool lease_ended() const { return lease_ended_; }

  // The job is done: a final checkpoint (finished) is confirmed.
  void Finish();

  // Optimistic profiling (docs/profiling.md): measures the CPU axis with
  // `measure` (run `iterations` iterations with `cpus` data workers, return
  // their throughput), called with the calling thread pinned to that many
  // CPUs' worth of the cores it may use (threads it starts inherit it), models the memory axis with `memory`, and sends the
  // matrix over the measured CPU counts x `mem_points_gb` (default: a
  // quarter, half, three quarters and all of the lease's memory) to
  // synergyd, which schedules the job with it. Returns the CPU profile;
  // standalone it measures over SYNERGY_CPUS (or the machine's CPUs) and
  // sends nothing.
  CpuProfile Profile(const std::function<double(int cpus, int iterations)>& measure, const MemoryModel& memory,
                     std::vector<double> mem_points_gb = {}, const ProfilerOptions& options = {});

  template <typename Range>
  class Wrapped;
  template <typename Range>
  Wrapped<Range> wrap(Range& range) {
    return Wrapped<Range>(*this, range);
  }

 private:
  Agent(LeaseInfo lease, AgentOptions options);
  void StartReporter();
  void Report();
  void EndLease();  // checkpoint, confirm, maybe exit
  bool Count();     // Step() after a resize: counts the iteration, may end the lease
  void ApplyResize();

  LeaseInfo lease_;
  AgentOptions options_;
  std::unique_ptr<Client> client_;
  std::function<std::string(int64_t)> save_;
  int64_t start_iteration_ = 0;
  std::string checkpoint_path_;
  std::atomic<int64_t> iteration_{0};
  // The iteration to stop at (INT64_MAX: none yet); set by the reporter.
  std::atomic<int64_t> stop_at_{INT64_MAX};
  std::atomic<bool> stop_reporter_{false};
  bool lease_ended_ = false;
  bool finished_ = false;
  struct Reporter;
  std::unique_ptr<Reporter> reporter_;
  // Resizes: the callback (set once, before or while it runs), the latest
  // allocation the reporter heard of, and whether Step() has it to apply.
  std::function<void(const Allocation&)> resize_;
  std::atomic<bool> can_resize_{false};
  std::atomic<bool> resize_pending_{false};
  std::atomic<int64_t> applied_revision_{0};
};

// for (auto& batch : agent.wrap(loader)): the loader's iteration, counted,
// ending early when Step() says so.
template <typename Range>
class Agent::Wrapped {
 public:
  using Inner = decltype(std::begin(std::declval<Range&>()));
  using InnerEnd = decltype(std::end(std::declval<Range&>()));
  struct Sentinel {};
  class Iterator {
   public:
    Iterator(Agent* agent, Inner it, InnerEnd end) : agent_(agent), it_(std::move(it)), end_(std::move(end)) {}
    decltype(auto) operator*() { return *it_; }
    Iterator& operator++() {
      ++it_;
      if (!agent_->Step()) stopped_ = true;
      return *this;
    }
    bool operator!=(const Sentinel&) const { return !stopped_ && it_ != end_; }
    bool operator==(const Sentinel& s) const { return !(*this != s); }

   private:
    Agent* agent_;
    Inner it_;
    InnerEnd end_;
    bool stopped_ = false;
  };
  Wrapped(Agent& agent, Range& range) : agent_(&agent), range_(&range) {}
  Iterator begin() { return Iterator(agent_, std::begin(*range_), std::end(*range_)); }
  Sentinel end() { return Sentinel{}; }

 private:
  Agent* agent_;
  Range* range_;
};

}  // namespace synergy::agent
