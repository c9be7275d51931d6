#pragma once
// The configuration files compiled into every binary, so that a fresh
// checkout runs without pointing at files: configs/clusters/default-128.yaml
// and configs/models/zoo.yaml, as they were at build time.
#include "absl/status/statusor.h"
#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy {

extern const char kDefaultClusterYaml[];
extern const char kDefaultModelZooYaml[];

// Parsed with the same loaders as a file; source names in errors are
// "<embedded default-128.yaml>" and "<embedded zoo.yaml>".
absl::StatusOr<Cluster> DefaultCluster();
absl::StatusOr<ModelZoo> DefaultModelZoo();

}  // namespace synergy
