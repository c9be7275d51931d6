#pragma once
// Reads the cluster and model-zoo YAML files (configs/clusters, configs/models)
// through synergy/yaml_reader.h.
//
// Every error names the file, the line (1-based) and the field, and the value
// that was refused, e.g.
//   configs/clusters/x.yaml:4: servers[0].gpus: '-1': must be between 1 and 1024
// A loader either returns a complete, valid object or an error; never a
// partly filled one.
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy {

// Sizes no real machine or cluster has: a larger value is refused as a
// mistake (a unit slip, a stray digit) before anything is sized by it. The
// largest servers sold today have a few hundred cores, 16 GPUs and a few TB
// of memory; the largest GPU clusters tens of thousands of servers.
inline constexpr int kMaxServers = 100000;            // per cluster, after `count`
inline constexpr int kMaxGpusPerServer = 1024;
inline constexpr double kMaxCpusPerServer = 4096;     // cores
inline constexpr double kMaxMemoryGbPerServer = 1e6;  // 1 PB
inline constexpr double kMaxStorageMbpsPerServer = 1e6;  // 1 TB/s
// A server's name (a DNS name's length); a server repeated by `count` gets a
// copy of it each.
inline constexpr size_t kMaxServerNameBytes = 253;
// The model zoo's grid and figures: throughput and speedup are relative to
// the GPU-proportional share (1.0), so 1000 is far past any measurement.
// Models x points bound what a zoo holds (1000 x 64 x 64 doubles, 32 MB,
// even when every model's throughput is one aliased table).
inline constexpr size_t kMaxProfilePoints = 64;  // per axis (cpu_points, memory_points_gb)
inline constexpr size_t kMaxModels = 1000;
inline constexpr size_t kMaxModelNameBytes = 128;  // service/request_limits.h kMaxModelBytes
inline constexpr double kMaxRelativeThroughput = 1000;
inline constexpr double kMaxIterationTimeS = 1e6;
inline constexpr int kMaxBatch = 1000000;
// GPU types: a name's bytes, and the types a model's gpu_speed names.
inline constexpr size_t kMaxGpuTypeBytes = 64;
inline constexpr size_t kMaxGpuTypes = 64;
// A GPU type's name: 1 to kMaxGpuTypeBytes lower-case letters, digits,
// '-', '_' or '.', as vendors and operators name them (v100, a100-80gb);
// the same rule in cluster files, the zoo, synergy-node's config and its
// registration.
bool IsGpuTypeName(std::string_view type);
inline constexpr char kGpuTypeRule[] = "a GPU type is 1 to 64 lower-case letters, digits, '-', '_' or '.'";

// Cluster file:
//   servers:
//     - {name: rack0-, count: 16, gpus: 8, cpus: 24, memory_gb: 500, storage_mbps: 500}
// `count` (default 1) repeats a server; names get the index appended when
// count > 1. `gpu_type` (optional; e.g. v100, p100, k80) names the servers'
// GPU type, a key of the zoo's gpu_speed; without it a server has the zoo's
// base type.
absl::StatusOr<Cluster> LoadClusterFile(const std::string& path);
absl::StatusOr<Cluster> ParseCluster(const std::string& yaml_text,
                                     const std::string& source_name);

// Model zoo file: the format of ../shared/reference/model-zoo.yaml
// (cpu_points, memory_points_gb, models[] with name, task, ideal, speedup,
// iteration_time_s, batch, throughput, optional placement_penalty), and
// optionally `gpu_type` (the type the profiles were measured on) and per
// model `gpu_speed: {type: speed}` (GPU-side speed relative to that type;
// synergy/gpu_type_model.h).
absl::StatusOr<ModelZoo> LoadModelZooFile(const std::string& path);
absl::StatusOr<ModelZoo> ParseModelZoo(const std::string& yaml_text,
                                       const std::string& source_name);

}  // namespace synergy
