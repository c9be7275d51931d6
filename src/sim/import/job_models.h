#pragma once
// Which model of the zoo an imported job is: traces do not name models, so
// the importer chooses one by a stated rule, seeded and reproducible (the
// same seed and trace give the same models on any machine).
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/import/trace_format.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

enum class ModelRule {
  // The reference simulator's: a task drawn by the (image, language,
  // speech) split, then a model of that task, uniformly.
  kSplit,
  // From what the job asked for: at least kImageCpusPerGpu cores a GPU is
  // an image model's input pipeline (the zoo's image models reach their
  // best at 4 to 12 cores a GPU, 8.6 on average), at most
  // kLanguageCpusPerGpu a language model's (theirs need 1); within the
  // task, the model whose best point is nearest the request. A job in
  // between, or whose CPUs were not recorded, is drawn as kSplit draws.
  kRequest,
};
inline constexpr double kImageCpusPerGpu = 8;
inline constexpr double kLanguageCpusPerGpu = 2;

struct ModelRuleSettings {
  ModelRule rule = ModelRule::kRequest;
  std::array<int, 3> split_percent{20, 70, 10};  // image, language, speech
  uint64_t seed = 42;
};

class ModelChooser {
 public:
  // INVALID_ARGUMENT when a task with a share of the split has no model in
  // the zoo.
  static absl::StatusOr<ModelChooser> Make(const ModelZoo& zoo, const ModelRuleSettings& settings);
  // The zoo index of the model of the `index`-th job the importer keeps.
  int ModelFor(int64_t index, const ImportedJob& job) const;

 private:
  ModelChooser(const ModelZoo& zoo, const ModelRuleSettings& settings);
  int Drawn(int64_t index) const;
  int Nearest(int64_t index, Task task, double cpus_per_gpu) const;

  const ModelZoo* zoo_;
  ModelRuleSettings settings_;
  std::array<std::vector<int>, 3> models_of_task_;
};

std::string_view ModelRuleName(ModelRule rule);

// A seeded draw for the importer's choices: a function of the seed, the
// item (an index, or a name's NameKey) and what is drawn, the same on any
// machine (SplitMix64, not std::hash or a library's distributions).
uint64_t SeededDraw(uint64_t seed, uint64_t item, uint64_t what);
// A name's 64-bit key for SeededDraw (FNV-1a).
uint64_t NameKey(std::string_view name);

}  // namespace synergy::sim
