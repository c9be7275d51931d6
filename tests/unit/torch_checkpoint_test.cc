// The libtorch adapter: a model trained k steps, checkpointed, restored into
// a fresh model and optimizer and trained on is, parameter for parameter,
// the model trained straight through; a checkpoint is written beside the
// last one (write, then rename), never over it.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
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

// A writer killed by SIGKILL while it saves checkpoint k leaves every
// checkpoint before k whole (each loads, with its own parameters) and at
// most a .tmp for k, never a partial <prefix>.k.pt.
TEST(TorchCheckpoint, AKillMidWriteLeavesTheLastGoodCheckpoint) {
  torch::set_num_threads(1);
  int killed_mid_write = 0;
  for (int attempt = 0; attempt < 10 && killed_mid_write == 0; ++attempt) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("synergy-torch-kill-" + std::to_string(getpid()) + "-" + std::to_string(attempt));
    std::filesystem::create_directories(dir);
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      dup2(out[1], 1);
      close(out[0]);
      execl(SYNERGY_CHECKPOINT_WRITER, SYNERGY_CHECKPOINT_WRITER, dir.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    FILE* lines = fdopen(out[0], "r");
    char line[64] = {0};
    ASSERT_NE(fgets(line, sizeof(line), lines), nullptr) << "the writer did not save its first checkpoint";
    ASSERT_STREQ(line, "saved 1\n");
    // Kill as soon as the next write has begun: torch serialises the
    // archive in memory, then opens the file and writes it out in a few
    // large writes, so the window is milliseconds; poll without sleeping.
    // A poll that misses it sees the writer exit, and the attempt counts
    // as no torn write.
    const std::string tmp = (dir / "job.2.pt.tmp").string();
    int status = 0;
    bool exited = false;
    for (struct stat st {}; !exited && (::stat(tmp.c_str(), &st) != 0 || st.st_size == 0);) {
      exited = waitpid(pid, &status, WNOHANG) == pid;
    }
    if (!exited) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
    fclose(lines);
    bool tmp_left = false;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (name.size() > 4 && name.substr(name.size() - 4) == ".tmp") {
        // Torn: some bytes written, fewer than a whole checkpoint.
        const auto whole = std::filesystem::file_size(dir / "job.1.pt");
        tmp_left = entry.file_size() > 0 && entry.file_size() < whole;
        std::cout << "killed with " << entry.file_size() << " of " << whole << " bytes of " << name << " written\n";
        if (tmp_left) {
          torch::nn::Linear model(2048, 2048);
          torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
          EXPECT_ANY_THROW(LoadCheckpoint(entry.path().string(), *model, optimizer)) << "a torn file loads";
        }
        continue;
      }
      // job.<k>.pt: whole, with the parameters of iteration k.
      const int64_t k = std::stoll(name.substr(4, name.size() - 7));
      torch::nn::Linear model(2048, 2048);
      torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
      EXPECT_EQ(LoadCheckpoint(entry.path().string(), *model, optimizer), k) << name;
      for (const auto& p : model->parameters()) {
        EXPECT_TRUE(torch::all(p == static_cast<double>(k)).item<bool>()) << name;
      }
    }
    EXPECT_TRUE(std::filesystem::exists(dir / "job.1.pt")) << "the first checkpoint is gone";
    if (tmp_left) ++killed_mid_write;
    std::filesystem::remove_all(dir);
  }
  // At least one kill landed inside a write, so the test saw a torn file.
  EXPECT_GT(killed_mid_write, 0);
}

}  // namespace
}  // namespace synergy::agent::torch_adapter
