#pragma once
// What the two example trainers share: flags, the resume/checkpoint wiring
// with the agent, the loop, and a final checksum of the parameters (so a
// run stopped and resumed by its leases can be compared with one that ran
// straight through: same data order, same seeds, one intra-op thread).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

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
};

inline Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--iterations") f.iterations = std::atoll(next().c_str());
    else if (a == "--batch") f.batch = std::atoi(next().c_str());
    else if (a == "--checkpoint-dir") f.checkpoint_dir = next();
    else if (a == "--result") f.result = next();
    else if (a == "--work") f.work = std::atoi(next().c_str());
    else {
      std::cerr << argv[0] << ": unknown argument " << a << "\n";
      std::exit(2);
    }
  }
  return f;
}

inline double Checksum(torch::nn::Module& model) {
  double sum = 0;
  for (const auto& p : model.parameters()) sum += p.to(torch::kDouble).sum().item<double>();
  return sum;
}

// The agent for an example: the loop returns at lease end (exit_on_lease_end
// off), so the data loader's worker threads are joined before exit.
inline std::unique_ptr<synergy::agent::Agent> MakeAgent() {
  synergy::agent::AgentOptions options;
  options.exit_on_lease_end = false;
  return synergy::agent::Agent::FromEnvironment(options);
}

// Runs `step(batch) -> loss` over `loader` under the agent: resumes from
// the last confirmed checkpoint, checkpoints at lease end, prints the loss.
template <typename Model, typename Loader, typename StepFn>
int Run(const std::string& name, synergy::agent::Agent& agent, const Flags& flags, Model& model,
        torch::optim::Optimizer& optimizer, int64_t start, Loader& loader, StepFn step) {
  namespace ta = synergy::agent::torch_adapter;
  const std::string job = agent.managed() ? agent.lease().job_id : name;
  agent.OnCheckpoint([&](int64_t it) { return ta::SaveCheckpoint(flags.checkpoint_dir + "/" + job, it, *model, optimizer); });
  std::cout << name << " " << job << ": iteration " << start << ", " << ta::DataWorkers(agent)
            << " data workers" << std::endl;
  int64_t it = start;
  double first = -1, last = 0;
  for (auto& batch : agent.wrap(*loader)) {
    const double loss = step(batch);
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
