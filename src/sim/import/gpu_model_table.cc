#include "sim/import/gpu_model_table.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "synergy/default_configs.h"
#include "synergy/quote.h"
#include "synergy/yaml_reader.h"

namespace synergy::sim {
namespace {

constexpr size_t kMaxGpuModels = 1024;

std::set<std::string> ZooTypes(const ModelZoo& zoo) {
  std::set<std::string> types;
  if (!zoo.base_gpu_type().empty()) types.insert(zoo.base_gpu_type());
  for (const ModelSpec& m : zoo.models()) {
    for (const auto& [type, speed] : m.gpu_speed) types.insert(type);
  }
  return types;
}

}  // namespace

absl::StatusOr<GpuModelTable> GpuModelTable::Parse(absl::string_view text, const std::string& source,
                                                   const ModelZoo& zoo) {
  auto doc = ParseYaml(text, source);
  if (!doc.ok()) return doc.status();
  auto root = doc->Map({"models"});
  if (!root.ok()) return root.status();
  auto models = root->Get("models").OpenMap(kMaxGpuModels);
  if (!models.ok()) return models.status();
  const std::set<std::string> types = ZooTypes(zoo);
  GpuModelTable table;
  table.source_ = source;
  for (const auto& [name, value] : *models) {
    auto type = value.NonEmptyString(128);
    if (!type.ok()) return type.status();
    if (!types.count(*type)) {
      return value.Error(absl::StrCat("is not a GPU type of the model zoo (", absl::StrJoin(types, ", "), ")"));
    }
    table.to_type_[name] = *type;
  }
  return table;
}

absl::StatusOr<GpuModelTable> GpuModelTable::Default(const ModelZoo& zoo) {
  return Parse(kDefaultGpuModelsYaml, "<embedded gpu-models.yaml>", zoo);
}

absl::StatusOr<std::string> GpuModelTable::TypeOf(absl::string_view model) const {
  auto it = to_type_.find(model);
  if (it == to_type_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("GPU model ", QuoteValue(model), " is not in the GPU model table ",
                                                   source_,
                                                   ": add it there (models: {NAME: TYPE}), mapped to "
                                                   "a GPU type of the model zoo, or pass --gpu-models FILE"));
  }
  return it->second;
}

absl::StatusOr<std::string> GpuModelTable::TypeOfAny(absl::string_view models) const {
  if (models.empty()) return std::string();
  std::set<std::string> types;
  for (absl::string_view model : absl::StrSplit(models, '|')) {
    auto type = TypeOf(model);
    if (!type.ok()) return type.status();
    types.insert(*type);
  }
  return types.size() == 1 ? *types.begin() : std::string();
}

}  // namespace synergy::sim
