#include "sim/import/job_models.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace synergy::sim {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The job's own draws: a function of the seed, its index and what is drawn
// (the task, or a model), not of the jobs before it.
enum Draw : uint64_t { kTaskDraw = 1, kModelDraw = 2 };
uint64_t DrawFor(uint64_t seed, int64_t index, Draw what) {
  return SeededDraw(seed, static_cast<uint64_t>(index), what);
}

}  // namespace

uint64_t SeededDraw(uint64_t seed, uint64_t item, uint64_t what) {
  return SplitMix64(seed ^ SplitMix64(item ^ SplitMix64(what)));
}

uint64_t NameKey(std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

std::string_view ModelRuleName(ModelRule rule) { return rule == ModelRule::kSplit ? "split" : "request"; }

ModelChooser::ModelChooser(const ModelZoo& zoo, const ModelRuleSettings& settings) : zoo_(&zoo), settings_(settings) {
  for (Task t : {Task::kImage, Task::kLanguage, Task::kSpeech})
    models_of_task_[static_cast<int>(t)] = zoo.ModelsOfTask(t);
}

absl::StatusOr<ModelChooser> ModelChooser::Make(const ModelZoo& zoo, const ModelRuleSettings& settings) {
  ModelChooser chooser(zoo, settings);
  for (int t = 0; t < 3; ++t) {
    const bool needed = settings.split_percent[t] > 0 || (settings.rule == ModelRule::kRequest && t != 2);
    if (needed && chooser.models_of_task_[t].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("the model zoo has no ", TaskName(static_cast<Task>(t)),
                                                     " model, which the model rule '",
                                                     std::string(ModelRuleName(settings.rule)), "' needs"));
    }
  }
  return chooser;
}

int ModelChooser::Drawn(int64_t index) const {
  const double percent = static_cast<double>(DrawFor(settings_.seed, index, kTaskDraw) >> 11) * 0x1.0p-53 * 100;
  int task = 2;
  if (percent < settings_.split_percent[0]) {
    task = 0;
  } else if (percent < settings_.split_percent[0] + settings_.split_percent[1]) {
    task = 1;
  }
  const std::vector<int>& models = models_of_task_[task];
  return models[DrawFor(settings_.seed, index, kModelDraw) % models.size()];
}

int ModelChooser::Nearest(int64_t index, Task task, double cpus_per_gpu) const {
  std::vector<int> nearest;
  double best = INFINITY;
  for (int m : models_of_task_[static_cast<int>(task)]) {
    const double d = std::fabs(zoo_->model(m).profile.ideal_per_gpu().cpus - cpus_per_gpu);
    if (d < best) {
      best = d;
      nearest.clear();
    }
    if (d == best) nearest.push_back(m);
  }
  return nearest[DrawFor(settings_.seed, index, kModelDraw) % nearest.size()];
}

int ModelChooser::ModelFor(int64_t index, const ImportedJob& job) const {
  if (settings_.rule == ModelRule::kRequest && job.cpus > 0) {
    const double per_gpu = job.cpus / job.gpus;
    if (per_gpu >= kImageCpusPerGpu) return Nearest(index, Task::kImage, per_gpu);
    if (per_gpu <= kLanguageCpusPerGpu) return Nearest(index, Task::kLanguage, per_gpu);
  }
  return Drawn(index);
}

}  // namespace synergy::sim
