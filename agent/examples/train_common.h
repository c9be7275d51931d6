#pragma once
// What the two example trainers share: flags, the resume/checkpoint wiring
// with the agent, optimistic profiling under a profiling lease, the loop,
// and a final checksum of the parameters (so a run stopped and resumed by
// its leases can be compared with one that ran straight through: same data
// order, same seeds, one intra-op thread).
//
// The GPU: with CUDA present the model trains there. Without one (Debian's
// libtorch is CPU-only) --gpu-ms N stands in for a GPU's step time: a step
// is padded with sleep to N ms, as the CPU would wait for the device, so
// the data pipeline and the "GPU" overlap as they do on a real server.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <torch/torch.h>

#include "synergy/agent.h"
#include "torch_agent.h"

namespace synergy::examples {

struct Flags {
  int64_t iterations = 200;  // standalone; under synergyd the job spec's
  int batch = 32;
  std::string checkpoint_dir = ".";
  std::string result;        // write the parameter checksum here at the end
  int work = 4;              // image: augmentation passes per sample
  double gpu_ms = 0;         // stand-in GPU step time when no CUDA device
  int profile_iterations = 20;  // per profiled CPU count
  int profile_passes = 1;       // searches of the CPU axis; each point keeps its best reading
  bool profile = false;      // standalone: profile over this machine's CPUs and print it
};

inline Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] {
      if (i + 1 >= argc) {
        std::cerr << argv[0] << ": " << a << " needs a value\n";
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (a == "--iterations") f.iterations = std::atoll(next().c_str());
    else if (a == "--batch") f.batch = std::atoi(next().c_str());
    else if (a == "--checkpoint-dir") f.checkpoint_dir = next();
    else if (a == "--result") f.result = next();
    else if (a == "--work") f.work = std::atoi(next().c_str());
    else if (a == "--gpu-ms") f.gpu_ms = std::atof(next().c_str());
    else if (a == "--profile-iterations") f.profile_iterations = std::atoi(next().c_str());
    else if (a == "--profile-passes") f.profile_passes = std::atoi(next().c_str());
    else if (a == "--profile") f.profile = true;
    else {
      std::cerr << argv[0] << ": unknown argument " << a << "\n";
      std::exit(2);
    }
  }
  if (f.batch <= 0 || f.iterations < 0 || f.gpu_ms < 0 || f.profile_iterations < 2 || f.profile_passes < 1 ||
      f.profile_passes > 10) {
    std::cerr << argv[0] << ": --batch must be > 0, --iterations and --gpu-ms >= 0, --profile-iterations >= 2, --profile-passes 1 to 10\n";
    std::exit(2);
  }
  return f;
}

inline double Checksum(torch::nn::Module& model) {
  double sum = 0;
  for (const auto& p : model.parameters()) sum += p.to(torch::kCPU).to(torch::kDouble).sum().item<double>();
  return sum;
}

// Data-loader workers are new threads, and OpenMP's thread count is per
// thread: without this each worker's ops would start a team of one thread
// per core, oversubscribing the job's CPUs (a data worker is one CPU).
inline void OneIntraOpThreadHere() {
  thread_local bool set = false;
  if (!set) {
    torch::set_num_threads(1);
    set = true;
  }
}

// Asked once: torch::cuda::is_available() is not free.
inline bool HasCuda() {
  static const bool has = torch::cuda::is_available();
  return has;
}
inline torch::Device TrainingDevice() { return HasCuda() ? torch::kCUDA : torch::kCPU; }

// The agent for an example: the loop returns at lease end (exit_on_lease_end
// off), so the data loader's worker threads are joined before exit.
inline std::unique_ptr<synergy::agent::Agent> MakeAgent() {
  synergy::agent::AgentOptions options;
  options.exit_on_lease_end = false;
  return synergy::agent::Agent::FromEnvironment(options);
}

// One training step, padded to the stand-in GPU time (none on CUDA).
template <typename StepFn, typename Batch>
double PaddedStep(const Flags& flags, StepFn& step, Batch& batch) {
  const auto start = std::chrono::steady_clock::now();
  const double loss = step(batch);
  if (flags.gpu_ms > 0 && !HasCuda()) {
    std::this_thread::sleep_until(start + std::chrono::microseconds(static_cast<int64_t>(flags.gpu_ms * 1000)));
  }
  return loss;
}

// Measures the job's throughput at each CPU count the agent's profiler
// tries (it pins and limits each point): `iterations` batches of a loader
// with the data workers the CPUs allow, the first batch (which fills the
// pipeline) not timed; prints what it measured, `label` first.
template <typename MakeLoader, typename Measure>
void ProfileTraining(const std::string& label, synergy::agent::Agent& agent, const Flags& flags, int64_t start,
                     MakeLoader& make_loader, Measure& measure) {
  namespace ta = synergy::agent::torch_adapter;
  synergy::agent::ProfilerOptions options;
  options.iterations_per_point = flags.profile_iterations;
  options.passes = flags.profile_passes;
  const synergy::agent::CpuProfile profile = agent.Profile(
      [&](int cpus, int iterations) {
        auto loader = make_loader(start * flags.batch, int64_t{iterations} * flags.batch, ta::WorkersFor(cpus));
        auto t0 = std::chrono::steady_clock::now();
        int done = 0;
        for (auto& batch : *loader) {
          PaddedStep(flags, measure, batch);
          if (++done == 1) t0 = std::chrono::steady_clock::now();
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return done > 1 && secs > 0 ? (done - 1) / secs : 0.0;
      },
      synergy::agent::MemoryModel{});  // generated data: memory does not matter
  std::cout << label << ": profile";
  for (const auto& p : profile.measured) std::cout << " " << p.cpus << " cpus " << p.throughput << " it/s;";
  std::cout << " knee " << profile.knee << " cpus (" << profile.seconds << " s)" << std::endl;
}

// Runs a classifier job under the agent (cross-entropy of
// `model->forward(data)` against the targets): resumes from the last
// confirmed checkpoint, moves the model to the training device, under a
// profiling lease first measures the CPU axis (a data loader with each CPU
// count's workers; a measured step is forward and backward without the
// optimizer's update, so profiling leaves the model as it was), then trains
// with as many data workers as the lease's CPUs allow, checkpoints at lease
// end and prints the loss. `make_loader(first_sample, samples, workers)`
// builds a loader over samples [first, first + samples) in order.
template <typename Model, typename MakeLoader>
int Run(const std::string& name, synergy::agent::Agent& agent, const Flags& flags, Model& model,
        torch::optim::Optimizer& optimizer, MakeLoader make_loader) {
  namespace ta = synergy::agent::torch_adapter;
  int64_t start = 0;
  if (agent.start_iteration() > 0) start = ta::LoadCheckpoint(agent.checkpoint_path(), *model, optimizer);
  const torch::Device device = TrainingDevice();
  model->to(device);
  auto backward = [&](auto& batch) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::cross_entropy_loss(model->forward(batch.data.to(device)), batch.target.to(device));
    loss.backward();
    return loss;
  };
  auto measure = [&](auto& batch) {
    const double loss = backward(batch).template item<double>();
    optimizer.zero_grad();  // profiling: measured, not learned from
    return loss;
  };
  auto step = [&](auto& batch) {
    torch::Tensor loss = backward(batch);
    optimizer.step();
    return loss.template item<double>();
  };
  const std::string job = agent.managed() ? agent.lease().job_id : name;
  agent.OnCheckpoint([&](int64_t it) { return ta::SaveCheckpoint(flags.checkpoint_dir + "/" + job, it, *model, optimizer); });
  if (agent.lease().profiling || (flags.profile && !agent.managed())) {
    ProfileTraining(name + " " + job, agent, flags, start, make_loader, measure);
    if (!agent.managed()) return 0;
  }
  const int workers = ta::DataWorkers(agent);
  std::cout << name << " " << job << ": iteration " << start << ", " << agent.lease().cpus << " cpus, " << workers
            << " data workers" << std::endl;
  const int64_t total = agent.managed() ? agent.lease().total_iterations : flags.iterations;
  auto loader = make_loader(start * flags.batch, std::max<int64_t>(0, total - start) * flags.batch, workers);
  int64_t it = start;
  double first = -1, last = 0;
  for (auto& batch : agent.wrap(*loader)) {
    const double loss = PaddedStep(flags, step, batch);
    if (first < 0) first = loss;
    last = loss;
    if (++it % 50 == 0) std::cout << name << " " << job << ": iteration " << it << " loss " << loss << std::endl;
  }
  if (agent.lease_ended()) {
    // Checkpointed and confirmed by the agent; return so the data loader's
    // workers are joined before the process exits.
    std::cout << name << " " << job << ": lease ended at iteration " << it << std::endl;
    return 0;
  }
  std::cout << name << " " << job << ": done at iteration " << it << ", loss " << first << " -> " << last << std::endl;
  if (!flags.result.empty() && (!agent.managed() || agent.lease().rank == 0)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g\n", Checksum(*model));
    std::ofstream(flags.result) << buf;
  }
  agent.Finish();
  return 0;
}

}  // namespace synergy::examples
