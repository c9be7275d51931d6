// A language-like training job with a light pipeline: token ids are cheap
// to produce, the model (an embedding and a projection) learns to predict
// the next token of a simple sequence; more data workers barely help.
//   language_train [--iterations N] [--batch B] [--gpu-ms MS] [--checkpoint-dir D] [--result F]
//                  [--profile] [--profile-iterations N] [--profile-passes N]
#include "train_common.h"

namespace {

constexpr int64_t kVocab = 64;

struct Tokens : torch::data::datasets::Dataset<Tokens> {
  int64_t offset, count;
  Tokens(int64_t offset, int64_t count) : offset(offset), count(count) {}
  torch::data::Example<> get(size_t index) override {
    synergy::examples::OneIntraOpThreadHere();
    const int64_t i = offset + static_cast<int64_t>(index);
    const int64_t token = (i * 7919) % kVocab;
    return {torch::tensor(token), torch::tensor((token + 1) % kVocab)};
  }
  torch::optional<size_t> size() const override { return static_cast<size_t>(count); }
};

struct LmImpl : torch::nn::Module {
  torch::nn::Embedding embed{nullptr};
  torch::nn::Linear out{nullptr};
  LmImpl() {
    embed = register_module("embed", torch::nn::Embedding(kVocab, 32));
    out = register_module("out", torch::nn::Linear(32, kVocab));
  }
  torch::Tensor forward(torch::Tensor x) { return out(torch::tanh(embed(x))); }
};
TORCH_MODULE(Lm);

}  // namespace

int main(int argc, char** argv) {
  torch::set_num_threads(1);
  const auto flags = synergy::examples::ParseFlags(argc, argv);
  auto agent = synergy::examples::MakeAgent();
  torch::manual_seed(0);
  Lm model;
  torch::optim::Adam optimizer(model->parameters(), torch::optim::AdamOptions(0.01));
  auto make_loader = [&](int64_t first, int64_t samples, int workers) {
    return torch::data::make_data_loader<torch::data::samplers::SequentialSampler>(
        Tokens(first, samples).map(torch::data::transforms::Stack<>()),
        torch::data::DataLoaderOptions().batch_size(flags.batch).workers(std::min(1, workers)));
  };
  return synergy::examples::Run("language_train", *agent, flags, model, optimizer, make_loader);
}
