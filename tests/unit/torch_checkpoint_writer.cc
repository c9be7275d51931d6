// Helper of torch_checkpoint_test: saves three checkpoints of a 16 MB model
// with SaveCheckpoint, the parameters all equal to the iteration, so the
// test can SIGKILL it halfway through a write. Prints "saved N" after each.
//   torch_checkpoint_writer DIR
#include <iostream>

#include "torch_agent.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: torch_checkpoint_writer DIR\n";
    return 2;
  }
  torch::set_num_threads(1);
  torch::nn::Linear model(2048, 2048);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  for (int64_t i = 1; i <= 3; ++i) {
    torch::NoGradGuard no_grad;
    for (auto& p : model->parameters()) p.fill_(static_cast<double>(i));
    synergy::agent::torch_adapter::SaveCheckpoint(std::string(argv[1]) + "/job", i, *model, optimizer);
    std::cout << "saved " << i << std::endl;
  }
  return 0;
}
