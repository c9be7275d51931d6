#pragma once
// Reads the cluster and model-zoo YAML files (configs/clusters, configs/models).
//
// Every error names the file, the line (1-based) and the field, and the value
// that was refused, e.g.
//   configs/clusters/x.yaml:4: servers[0].gpus: -1 is not a positive integer
// A loader either returns a complete, valid object or an error; never a
// partly filled one.
#include <string>

#include "absl/status/statusor.h"
#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy {

// Cluster file:
//   servers:
//     - {name: rack0-, count: 16, gpus: 8, cpus: 24, memory_gb: 500, storage_mbps: 500}
// `count` (default 1) repeats a server; names get the index appended when
// count > 1.
absl::StatusOr<Cluster> LoadClusterFile(const std::string& path);
absl::StatusOr<Cluster> ParseCluster(const std::string& yaml_text,
                                     const std::string& source_name);

// Model zoo file: the format of ../shared/reference/model-zoo.yaml
// (cpu_points, memory_points_gb, models[] with name, task, ideal, speedup,
// iteration_time_s, batch, throughput, optional placement_penalty).
absl::StatusOr<ModelZoo> LoadModelZooFile(const std::string& path);
absl::StatusOr<ModelZoo> ParseModelZoo(const std::string& yaml_text,
                                       const std::string& source_name);

}  // namespace synergy
