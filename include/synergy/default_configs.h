#pragma once
// The configuration files compiled into every binary, so that a fresh
// checkout runs without pointing at files: configs/clusters/default-128.yaml
// configs/models/zoo.yaml, configs/synergyd.yaml and configs/synergy-node.yaml,
// as they were at build time.
#include "absl/status/statusor.h"
#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy {

extern const char kDefaultClusterYaml[];
extern const char kDefaultModelZooYaml[];
// configs/synergyd.yaml and configs/synergy-node.yaml (parsed by the
// daemon's and the node's own loaders).
extern const char kDefaultDaemonYaml[];
extern const char kDefaultNodeYaml[];
// configs/traces/gpu-models.yaml (read by synergy-sim import).
extern const char kDefaultGpuModelsYaml[];

// Parsed with the same loaders as a file; source names in errors are
// "<embedded default-128.yaml>" and "<embedded zoo.yaml>".
absl::StatusOr<Cluster> DefaultCluster();
absl::StatusOr<ModelZoo> DefaultModelZoo();

}  // namespace synergy
