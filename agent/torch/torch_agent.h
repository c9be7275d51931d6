#pragma once
// libtorch on top of libsynergy_agent: checkpoints of a model, its
// optimizer and the iteration with torch::save's archive format (written to
// a temporary file, then renamed, so a crash mid-checkpoint leaves the last
// good one), and the data-loader worker count the lease's CPUs allow.
#include <cstdint>
#include <string>

#include <torch/torch.h>

#include "synergy/agent.h"

namespace synergy::agent::torch_adapter {

// Writes `<prefix>.<iteration>.pt` (via `<...>.tmp` and a rename) holding
// the model's parameters and buffers, the optimizer's state and the
// iteration; returns the path.
std::string SaveCheckpoint(const std::string& prefix, int64_t iteration, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer);

// Restores what SaveCheckpoint wrote; returns the iteration stored.
int64_t LoadCheckpoint(const std::string& path, torch::nn::Module& model, torch::optim::Optimizer& optimizer);

// Data-loader workers for `cpus` CPUs: one CPU stays with the training
// loop, the rest load data (0 = load in the loop's thread).
int WorkersFor(int cpus);

// Data-loader workers for this lease's CPUs (standalone: SYNERGY_CPUS, else
// the machine's).
// Without Agent::OnResize a change of the lease's CPUs ends it and the job
// resumes under a new one, so a loader built here at start follows every
// change. A job that sets OnResize rebuilds its loader with
// WorkersFor(allocation.cpus) in the callback instead (the Python adapter's
// LeaseLoader does; the C++ example trainers do not yet).
int DataWorkers(const Agent& agent);

}  // namespace synergy::agent::torch_adapter
