// The libtorch adapter: a model trained k steps, checkpointed, restored into
// a fresh model and optimizer and trained on is, parameter for parameter,
// the model trained straight through; a checkpoint is written beside the
// last one (write, then rename), never over it.
#include <filesystem>

#include "gtest/gtest.h"
#include "torch_agent.h"

namespace synergy::agent::torch_adapter {
namespace {

torch::nn::Sequential Model() {
  return torch::nn::Sequential(torch::nn::Linear(4, 8), torch::nn::ReLU(), torch::nn::Linear(8, 1));
}

void Train(torch::nn::Sequential& model, torch::optim::Optimizer& opt, int64_t from, int64_t to) {
  for (int64_t i = from; i < to; ++i) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(i));
    torch::Tensor x = torch::randn({16, 4}, gen);
    torch::Tensor y = x.sum(1, true);
    opt.zero_grad();
    torch::Tensor loss = torch::mse_loss(model->forward(x), y);
    loss.backward();
    opt.step();
  }
}

TEST(TorchCheckpoint, ResumedTrainingEqualsStraightTraining) {
  torch::set_num_threads(1);
  const auto dir = std::filesystem::temp_directory_path() / ("synergy-torch-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);

  torch::manual_seed(1);
  auto straight = Model();
  torch::optim::SGD straight_opt(straight->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  Train(straight, straight_opt, 0, 30);

  torch::manual_seed(1);
  auto first = Model();
  torch::optim::SGD first_opt(first->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  Train(first, first_opt, 0, 12);
  const std::string path = SaveCheckpoint((dir / "job").string(), 12, *first, first_opt);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  torch::manual_seed(99);  // a different initialisation: the checkpoint must overwrite it all
  auto resumed = Model();
  torch::optim::SGD resumed_opt(resumed->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  EXPECT_EQ(LoadCheckpoint(path, *resumed, resumed_opt), 12);
  Train(resumed, resumed_opt, 12, 30);

  auto a = straight->parameters();
  auto b = resumed->parameters();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "parameter " << i;
  // Without the optimizer's momentum the result would differ: the test can fail.
  torch::manual_seed(99);
  auto no_momentum = Model();
  torch::optim::SGD fresh_opt(no_momentum->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  LoadCheckpoint(path, *no_momentum, fresh_opt);
  torch::optim::SGD reset_opt(no_momentum->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  Train(no_momentum, reset_opt, 12, 30);
  EXPECT_FALSE(torch::equal(no_momentum->parameters()[0], a[0]));

  // The next checkpoint goes beside this one.
  const std::string next = SaveCheckpoint((dir / "job").string(), 30, *resumed, resumed_opt);
  EXPECT_NE(next, path);
  EXPECT_TRUE(std::filesystem::exists(path));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace synergy::agent::torch_adapter
