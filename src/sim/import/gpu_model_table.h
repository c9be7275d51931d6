#pragma once
// The GPU models public traces name (V100M32, T4, MISC, ...), mapped to the
// GPU types of the model zoo, as configs/traces/gpu-models.yaml states
// them: the importer's only knowledge of GPU models.
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

class GpuModelTable {
 public:
  // `text` is the YAML (`models: {NAME: TYPE, ...}`) named `source` in
  // errors; each TYPE must be one the zoo knows (its base type or a
  // gpu_speed entry).
  static absl::StatusOr<GpuModelTable> Parse(absl::string_view text, const std::string& source, const ModelZoo& zoo);
  // The compiled-in configs/traces/gpu-models.yaml.
  static absl::StatusOr<GpuModelTable> Default(const ModelZoo& zoo);

  // The zoo type of `model`; INVALID_ARGUMENT naming the model and this
  // table's source when the table lacks it.
  absl::StatusOr<std::string> TypeOf(absl::string_view model) const;
  // The zoo type of a job that may run on any of `models` ('|' between
  // them): the one type they all map to, or "" (any) where they map to
  // several or `models` is empty.
  absl::StatusOr<std::string> TypeOfAny(absl::string_view models) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::map<std::string, std::string, std::less<>> to_type_;
};

}  // namespace synergy::sim
