#include "torch_agent.h"

#include <filesystem>
#include <thread>

namespace synergy::agent::torch_adapter {

std::string SaveCheckpoint(const std::string& prefix, int64_t iteration, torch::nn::Module& model,
                           torch::optim::Optimizer& optimizer) {
  const std::string path = prefix + "." + std::to_string(iteration) + ".pt";
  const std::string tmp = path + ".tmp";
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  torch::serialize::OutputArchive archive;
  model.save(archive);
  torch::serialize::OutputArchive opt;
  optimizer.save(opt);
  archive.write("optimizer", opt);
  archive.write("iteration", torch::tensor(iteration, torch::kInt64));
  archive.save_to(tmp);
  std::filesystem::rename(tmp, path);
  return path;
}

int64_t LoadCheckpoint(const std::string& path, torch::nn::Module& model, torch::optim::Optimizer& optimizer) {
  torch::serialize::InputArchive archive;
  archive.load_from(path);
  model.load(archive);
  torch::serialize::InputArchive opt;
  archive.read("optimizer", opt);
  optimizer.load(opt);
  torch::Tensor iteration;
  archive.read("iteration", iteration);
  return iteration.item<int64_t>();
}

int WorkersFor(int cpus) { return std::max(0, cpus - 1); }

int DataWorkers(const Agent& agent) {
  const int cpus = agent.lease().cpus > 0 ? agent.lease().cpus : static_cast<int>(std::thread::hardware_concurrency());
  return WorkersFor(cpus);
}

}  // namespace synergy::agent::torch_adapter
