// A small training-like job built on libsynergy_agent, for the integration
// tests and the demo: it resumes from its last confirmed checkpoint, "trains"
// one iteration every --iteration-ms, and lets the agent stop it at lease
// end (checkpoint written to a file per iteration, then renamed into place,
// then confirmed). Its "model" is a running sum over the iterations, so a
// resumed run that skipped or repeated an iteration ends with a different
// value than one that ran straight through; rank 0 writes it to
// <checkpoint-dir>/<job>.result at the end.
//   agent_job [--iteration-ms 20] [--checkpoint-dir DIR] [--crash-at K] [--cpu-knee N]
// --cpu-knee N makes it CPU-sensitive like an image model's data pipeline:
// an iteration takes iteration-ms x N / min(cpus, N) with `cpus` its data
// workers (its lease's CPUs). Under a profiling lease it first measures
// itself with the agent's profiler (10 iterations per point, the median
// iteration's rate).
// --follow-resizes lets synergyd change its CPUs and memory in place
// (Agent::OnResize): at each resize it prints "resize R: C cpus (allowed
// A), M GB (limit L)" with A the CPUs it may run on (Cpus_allowed_list)
// and L its memory cgroup's limit as it finds them, and its iterations
// follow the new CPUs. --hold-mem F keeps F x its lease's memory allocated
// and touched (a data pipeline's buffers), shed or grown inside the
// resize callback: a memory limit lowered before the job sheds kills it.
// --crash-at K exits with status 3 at iteration K, once (a marker file in
// the checkpoint directory remembers it crashed).
// --crash-in-checkpoint N dies by SIGKILL halfway through writing its N-th
// checkpoint (counted over the job's life by the complete checkpoint files
// there), once: the half-written .tmp stays behind, never renamed or
// confirmed. Standalone (no scheduler
// in the environment) it runs --iterations N (default 100) and prints the
// result.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <sstream>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "synergy/agent.h"

namespace {

// The model: sum of (i * 7 + 3) mod 1000 over the iterations done.
int64_t Step(int64_t state, int64_t i) { return state + (i * 7 + 3) % 1000; }

// An endless data source: batch i is i.
struct Batches {
  struct Iterator {
    int64_t i;
    int64_t operator*() const { return i; }
    Iterator& operator++() {
      ++i;
      return *this;
    }
    bool operator!=(const Iterator&) const { return true; }
  };
  int64_t first;
  Iterator begin() const { return {first}; }
  Iterator end() const { return {-1}; }
};

// This process's line of `key` in /proc/self/status (e.g. Cpus_allowed_list).
std::string StatusLine(const std::string& key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0) {
      const size_t v = line.find_first_not_of(" \t", key.size() + 1);
      return v == std::string::npos ? "" : line.substr(v);
    }
  }
  return "?";
}

// The memory limit of this process's memory cgroup (v1 or v2), or "none".
std::string MemoryLimit() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const size_t first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1), path = line.substr(second + 1);
    std::string file;
    if (controllers.find("memory") != std::string::npos) file = "/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes";
    else if (controllers.empty()) file = "/sys/fs/cgroup" + path + "/memory.max";
    std::ifstream limit(file);
    std::string value;
    if (!file.empty() && std::getline(limit, value)) return value;
  }
  return "none";
}

// `gb` of memory, allocated and touched, released before a new one is made.
class HeldMemory {
 public:
  void Hold(double gb) {
    block_.reset();
    bytes_ = static_cast<size_t>(std::max(0.0, gb) * 1024 * 1024 * 1024);
    if (bytes_ == 0) return;
    block_.reset(new char[bytes_]);
    std::memset(block_.get(), 1, bytes_);
  }

 private:
  std::unique_ptr<char[]> block_;
  size_t bytes_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int iteration_ms = 20;
  int64_t crash_at = -1, standalone_iterations = 100;
  int cpu_knee = 0;
  int crash_in_checkpoint = 0;
  int64_t print_every = 0;  // "iteration N" on stdout every this many (0: none)
  bool follow_resizes = false;
  double hold_mem = 0;
  std::string dir = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--iteration-ms" && i + 1 < argc) iteration_ms = std::atoi(argv[++i]);
    else if (a == "--crash-at" && i + 1 < argc) crash_at = std::atoll(argv[++i]);
    else if (a == "--checkpoint-dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--iterations" && i + 1 < argc) standalone_iterations = std::atoll(argv[++i]);
    else if (a == "--cpu-knee" && i + 1 < argc) cpu_knee = std::atoi(argv[++i]);
    else if (a == "--crash-in-checkpoint" && i + 1 < argc) crash_in_checkpoint = std::atoi(argv[++i]);
    else if (a == "--print-every" && i + 1 < argc) print_every = std::atoll(argv[++i]);
    else if (a == "--follow-resizes") follow_resizes = true;
    else if (a == "--hold-mem" && i + 1 < argc) hold_mem = std::atof(argv[++i]);
    else {
      std::cerr << "agent_job: unknown argument " << a << "\n";
      return 2;
    }
  }
  auto agent = synergy::agent::Agent::FromEnvironment();
  const std::string job = agent->managed() ? agent->lease().job_id : "standalone";
  const int64_t total = agent->managed() ? agent->lease().total_iterations : standalone_iterations;
  std::filesystem::create_directories(dir);
  const std::string prefix = dir + "/" + job + ".ckpt";

  int64_t state = 0;
  int64_t iteration = agent->start_iteration();
  if (iteration > 0) {
    std::ifstream in(agent->checkpoint_path());
    int64_t saved = -1;
    in >> saved >> state;
    if (saved != iteration) {
      std::cerr << "agent_job: checkpoint " << agent->checkpoint_path() << " holds iteration " << saved
                << ", expected " << iteration << "\n";
      return 5;
    }
  }
  // Complete checkpoints of this job so far: <prefix>.<iteration> files.
  auto checkpoints_written = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().string();
      if (name.rfind(prefix + ".", 0) == 0 &&
          name.find_first_not_of("0123456789", prefix.size() + 1) == std::string::npos) {
        ++n;
      }
    }
    return n;
  };
  agent->OnCheckpoint([&](int64_t at) {
    const std::string path = prefix + "." + std::to_string(at);
    if (crash_in_checkpoint > 0 && !std::filesystem::exists(prefix + ".torn") &&
        checkpoints_written() == crash_in_checkpoint - 1) {
      std::ofstream(prefix + ".torn") << at << "\n";
      std::ofstream out(path + ".tmp", std::ios::trunc);
      out << at << " " << std::flush;  // the iteration, not yet the state
      std::cerr << "agent_job: dying halfway through checkpoint " << crash_in_checkpoint << " at iteration " << at
                << " as asked\n";
      std::raise(SIGKILL);
    }
    {
      std::ofstream out(path + ".tmp", std::ios::trunc);
      out << at << " " << state << "\n";
    }
    std::filesystem::rename(path + ".tmp", path);
    return path;
  });
  // Time of one iteration with `cpus` data workers.
  auto iteration_time = [&](int cpus) {
    const double slowdown = cpu_knee > 0 ? double(cpu_knee) / std::max(1, std::min(cpus, cpu_knee)) : 1.0;
    return std::chrono::duration<double, std::milli>(iteration_ms * slowdown);
  };
  if (agent->lease().profiling) {
    synergy::agent::ProfilerOptions options;
    options.iterations_per_point = 10;
    agent->Profile(
        [&](int cpus, int iterations) {
          // The median iteration, not the mean: on a loaded machine one late
          // wakeup would otherwise move a point by more than the profiler's
          // 10% threshold and put a flat job's knee above 1 CPU.
          // On CPU slots the node lets the profiler set the job's CPU-time
          // limit for each point; say what it is, for the tests.
          if (const char* file = std::getenv("SYNERGY_CPU_LIMIT_FILE")) {
            std::ifstream in(file);
            std::string limit;
            std::getline(in, limit);
            std::cout << "agent_job profile point " << cpus << " cpus: cpu limit " << limit << std::endl;
          }
          std::vector<double> seconds;
          for (int k = 0; k < iterations; ++k) {
            const auto start = std::chrono::steady_clock::now();
            std::this_thread::sleep_for(iteration_time(cpus));
            seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          }
          std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
          return 1.0 / seconds[seconds.size() / 2];
        },
        synergy::agent::MemoryModel{}, {}, options);
  }
  auto my_iteration = iteration_time(agent->lease().cpus > 0 ? agent->lease().cpus : 1);
  HeldMemory held;
  held.Hold(hold_mem * agent->lease().mem_gb);
  if (follow_resizes && agent->managed()) {
    agent->OnResize([&](const synergy::agent::Allocation& a) {
      held.Hold(hold_mem * a.mem_gb);  // shed (or grow) before the agent confirms
      my_iteration = iteration_time(a.cpus);
      std::cout << "agent_job " << job << " resize " << a.revision << ": " << a.cpus << " cpus (allowed "
                << StatusLine("Cpus_allowed_list") << "), " << a.mem_gb << " GB (limit " << MemoryLimit() << ")"
                << std::endl;
    });
  }
  std::cout << "agent_job " << job << " lease " << agent->lease().epoch << ": resuming at iteration " << iteration
            << " of " << total << " on " << agent->lease().cpus << " cpus (allowed "
            << StatusLine("Cpus_allowed_list") << ", memory limit " << MemoryLimit() << ")" << std::endl;

  Batches batches{iteration};
  for (int64_t batch : agent->wrap(batches)) {
    if (batch >= total) break;
    if (batch == crash_at && !std::filesystem::exists(prefix + ".crashed")) {
      std::ofstream(prefix + ".crashed") << "crashed\n";
      std::cerr << "agent_job: crashing at iteration " << batch << " as asked\n";
      return 3;
    }
    std::this_thread::sleep_for(my_iteration);
    if (print_every > 0 && batch % print_every == 0) std::cout << "iteration " << batch << std::endl;
    state = Step(state, batch);
    iteration = batch + 1;
  }
  std::cout << "agent_job " << job << ": done, state " << state << std::endl;
  if (agent->lease().rank == 0) std::ofstream(dir + "/" + job + ".result") << state << "\n";
  agent->Finish();
  return 0;
}
