#pragma once
// A trace's machine list as a synergy-sim cluster: one server group per
// shape (GPU type, GPUs, CPUs, memory), counts as in the list, in the order
// each shape first appears. The YAML is what ParseCluster reads.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/import/gpu_model_table.h"
#include "sim/import/import_account.h"
#include "sim/import/trace_format.h"

namespace synergy::sim {

// Storage bandwidth a server is given per GPU: traces record none; the
// reference's servers have 500 MB/s for 8 GPUs.
inline constexpr double kStorageMbpsPerGpu = 62.5;

// Reads the machine list at `path` in `format` (its header as the format
// says); machines without GPUs are counted in `account.nodes` and left
// out. Returns cluster.yaml's text; errors are "PATH:LINE: FIELD: 'VALUE':
// why", or name a GPU model the table lacks.
absl::StatusOr<std::string> ClusterYamlFromNodes(const TraceFormat& format, const std::string& path,
                                                 const GpuModelTable& table, ImportAccount& account);

}  // namespace synergy::sim
