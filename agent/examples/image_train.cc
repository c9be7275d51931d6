// An image-like training job whose data pipeline is CPU-heavy: every sample
// is "decoded" (generated from its index) and augmented with --work blur
// and flip passes in the dataset's get(), so throughput grows with data
// workers until the model's step is the bottleneck. A small CNN learns to
// tell two classes of images apart; the loss falls.
//   image_train [--iterations N] [--batch B] [--work K] [--gpu-ms MS] [--checkpoint-dir D]
//               [--result F] [--profile] [--profile-iterations N] [--profile-passes N]
// --profile (standalone): measure throughput over this machine's CPU counts
// with the agent's profiler, print it and exit.
#include "train_common.h"

namespace {

struct Images : torch::data::datasets::Dataset<Images> {
  int64_t offset, count;
  int work;
  Images(int64_t offset, int64_t count, int work) : offset(offset), count(count), work(work) {}
  torch::data::Example<> get(size_t index) override {
    synergy::examples::OneIntraOpThreadHere();
    const int64_t i = offset + static_cast<int64_t>(index);
    auto gen = at::make_generator<at::CPUGeneratorImpl>(static_cast<uint64_t>(i));
    const int64_t label = i % 2;
    torch::Tensor img = torch::randn({3, 32, 32}, gen) + (label ? 0.5 : -0.5);
    const torch::Tensor kernel = torch::full({3, 1, 3, 3}, 1.0 / 9);
    for (int k = 0; k < work; ++k) {  // augmentation: blur and flip
      img = torch::conv2d(img.unsqueeze(0), kernel, {}, 1, 1, 1, 3).squeeze(0);
      img = img.flip({2});
    }
    return {img, torch::tensor(label)};
  }
  torch::optional<size_t> size() const override { return static_cast<size_t>(count); }
};

struct NetImpl : torch::nn::Module {
  torch::nn::Conv2d conv{nullptr};
  torch::nn::Linear fc{nullptr};
  NetImpl() {
    conv = register_module("conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 8, 3).padding(1)));
    fc = register_module("fc", torch::nn::Linear(8, 2));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::relu(conv(x));
    x = torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1);
    return fc(x);
  }
};
TORCH_MODULE(Net);

}  // namespace

int main(int argc, char** argv) {
  torch::set_num_threads(1);
  const auto flags = synergy::examples::ParseFlags(argc, argv);
  auto agent = synergy::examples::MakeAgent();
  torch::manual_seed(0);
  Net model;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.05).momentum(0.9));
  auto make_loader = [&](int64_t first, int64_t samples, int workers) {
    return torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        Images(first, samples, flags.work).map(torch::data::transforms::Stack<>()),
        torch::data::DataLoaderOptions().batch_size(flags.batch).workers(workers));
  };
  return synergy::examples::Run("image_train", *agent, flags, model, optimizer, make_loader);
}
