#include "sim/import/cluster_from_nodes.h"

#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/import/table_rows.h"

namespace synergy::sim {
namespace {

struct Shape {
  std::string gpu_model;
  int gpus;
  double cpus;
  double mem_gb;
  bool operator<(const Shape& o) const {
    return std::tie(gpu_model, gpus, cpus, mem_gb) < std::tie(o.gpu_model, o.gpus, o.cpus, o.mem_gb);
  }
};

// A server group's name: its trace model, less what a name may not hold.
std::string GroupName(const std::string& model, size_t index) {
  std::string name;
  for (char c : model) name.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '-');
  return absl::StrCat(name, "-", index, "-");
}

}  // namespace

absl::StatusOr<std::string> ClusterYamlFromNodes(const TraceFormat& format, const std::string& path,
                                                 const GpuModelTable& table, ImportAccount& account) {
  std::map<Shape, int> count;
  std::vector<Shape> order;
  TableShape shape{format.node_columns(), format.node_header_required(), format.name()};
  absl::Status st = ForEachRow(path, shape, account.nodes, [&](const std::vector<absl::string_view>& f, int64_t) {
    auto node = format.ReadNode(f);
    if (!node.ok()) return node.status();
    if (node->gpus == 0) {
      ++account.nodes.dropped["no_gpus"];
      return absl::OkStatus();
    }
    auto type = table.TypeOf(node->gpu_model);
    if (!type.ok()) return type.status();
    account.gpu_models_seen[node->gpu_model] = *type;
    ++account.nodes.kept;
    Shape s{node->gpu_model, node->gpus, node->cpus, node->mem_gb};
    if (count[s]++ == 0) order.push_back(s);
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  if (order.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": lists no machine with GPUs"));
  std::string yaml = absl::StrCat("# Imported by synergy-sim import ", format.name(), " from ", path,
                                  ": one group per machine shape.\n# storage_mbps: ", kStorageMbpsPerGpu,
                                  " a GPU (traces record none).\nservers:\n");
  for (size_t i = 0; i < order.size(); ++i) {
    const Shape& s = order[i];
    absl::StrAppendFormat(&yaml,
                          "  - {name: %s, count: %d, gpus: %d, cpus: %.17g, memory_gb: %.17g, storage_mbps: %.17g, "
                          "gpu_type: %s}\n",
                          GroupName(s.gpu_model, i), count[s], s.gpus, s.cpus, s.mem_gb, kStorageMbpsPerGpu * s.gpus,
                          *table.TypeOf(s.gpu_model));
  }
  return yaml;
}

}  // namespace synergy::sim
