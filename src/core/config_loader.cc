#include "synergy/config_loader.h"

#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "synergy/yaml_reader.h"

namespace synergy {
namespace {

// A non-empty list of strictly increasing points, each in (0, max].
absl::StatusOr<std::vector<double>> IncreasingPoints(const YamlMap& root, absl::string_view key,
                                                     double max) {
  YamlValue list = root.Get(key);
  absl::StatusOr<std::vector<YamlValue>> items = list.List(1, kMaxProfilePoints);
  if (!items.ok()) return items.status();
  std::vector<double> out;
  for (const YamlValue& item : *items) {
    absl::StatusOr<double> v = item.Double(DoubleRange::Positive(max));
    if (!v.ok()) return v.status();
    if (!out.empty() && *v <= out.back()) return item.Error("must be above the previous point");
    out.push_back(*v);
  }
  return out;
}


absl::StatusOr<std::string> ReadGpuType(const YamlValue& v) {
  absl::StatusOr<std::string> type = v.NonEmptyString(kMaxGpuTypeBytes);
  if (!type.ok()) return type.status();
  if (!IsGpuTypeName(*type)) return v.Error(kGpuTypeRule);
  return type;
}

// One `servers` entry, expanded by its count and appended to `servers`.
absl::Status AddServers(const YamlValue& entry, std::vector<ServerSpec>& servers) {
  absl::StatusOr<YamlMap> m =
      entry.Map({"name", "count", "gpus", "cpus", "memory_gb", "storage_mbps", "gpu_type"});
  if (!m.ok()) return m.status();
  int count = 1;
  std::string name = "server";
  double storage_mbps = 0;
  absl::Status st;
  st.Update(m->Read("count", count, IntRange{1, kMaxServers}));
  st.Update(m->Read("name", name, kMaxServerNameBytes));
  if (!st.ok()) return st;
  auto gpus = m->Get("gpus").Int(IntRange{1, kMaxGpusPerServer});
  if (!gpus.ok()) return gpus.status();
  auto cpus = m->Get("cpus").Double(DoubleRange::Positive(kMaxCpusPerServer));
  if (!cpus.ok()) return cpus.status();
  auto memory_gb = m->Get("memory_gb").Double(DoubleRange::Positive(kMaxMemoryGbPerServer));
  if (!memory_gb.ok()) return memory_gb.status();
  st = m->Read("storage_mbps", storage_mbps, DoubleRange::NonNegative(kMaxStorageMbpsPerServer));
  if (!st.ok()) return st;
  std::string gpu_type;
  if (m->Has("gpu_type")) {
    absl::StatusOr<std::string> type = ReadGpuType(m->Get("gpu_type"));
    if (!type.ok()) return type.status();
    gpu_type = *std::move(type);
  }
  if (servers.size() + count > static_cast<size_t>(kMaxServers)) {
    return m->Get("count").Error(
        absl::StrCat("brings the cluster past ", kMaxServers, " servers"));
  }
  const bool numbered = count > 1 || !m->Has("name");
  for (int k = 0; k < count; ++k) {
    ServerSpec spec;
    spec.name = numbered ? absl::StrCat(name, servers.size()) : name;
    spec.capacity = Resources{static_cast<int>(*gpus), *cpus, *memory_gb, storage_mbps};
    spec.gpu_type = gpu_type;
    servers.push_back(std::move(spec));
  }
  return absl::OkStatus();
}

absl::StatusOr<Task> ReadTask(const YamlValue& value) {
  absl::StatusOr<std::string> task = value.String();
  if (!task.ok()) return task.status();
  if (*task == "image") return Task::kImage;
  if (*task == "language") return Task::kLanguage;
  if (*task == "speech") return Task::kSpeech;
  return value.Error("is not one of image, language, speech");
}

// throughput: one row per cpu point, one value per memory point.
absl::StatusOr<std::vector<std::vector<double>>> ReadThroughput(const YamlValue& value,
                                                                size_t rows, size_t columns) {
  absl::StatusOr<std::vector<YamlValue>> list = value.List(0, kMaxProfilePoints);
  if (list.ok() && list->size() != rows) {
    return value.Error(absl::StrCat("must have one row per cpu point (", rows, ")"));
  }
  if (!list.ok()) return list.status();
  std::vector<std::vector<double>> matrix;
  for (const YamlValue& row : *list) {
    absl::StatusOr<std::vector<YamlValue>> cells = row.List(0, kMaxProfilePoints);
    if (cells.ok() && cells->size() != columns) {
      return row.Error(absl::StrCat("must have one value per memory point (", columns, ")"));
    }
    auto values = row.DoubleList(DoubleRange::NonNegative(kMaxRelativeThroughput), columns, columns);
    if (!values.ok()) return values.status();
    matrix.push_back(*std::move(values));
  }
  return matrix;
}

// One `models` entry; `names` holds the names of the entries before it.
absl::StatusOr<ModelSpec> ReadModel(const YamlValue& entry, const std::vector<double>& cpu_points,
                                    const std::vector<double>& mem_points,
                                    std::set<std::string>& names) {
  absl::StatusOr<YamlMap> m = entry.Map({"name", "task", "ideal", "speedup", "iteration_time_s",
                                         "batch", "throughput", "placement_penalty", "gpu_speed"});
  if (!m.ok()) return m.status();
  ModelSpec spec;
  absl::StatusOr<std::string> name = m->Get("name").NonEmptyString(kMaxModelNameBytes);
  if (!name.ok()) return name.status();
  if (!names.insert(*name).second) return m->Get("name").Error("is listed twice");
  spec.name = *name;
  absl::StatusOr<Task> task = ReadTask(m->Get("task"));
  if (!task.ok()) return task.status();
  spec.task = *task;
  absl::StatusOr<YamlMap> ideal = m->Get("ideal").Map({"cpus", "memory_gb"});
  if (!ideal.ok()) return ideal.status();
  auto ideal_cpus = ideal->Get("cpus").Double(DoubleRange::Positive(kMaxCpusPerServer));
  if (!ideal_cpus.ok()) return ideal_cpus.status();
  auto ideal_mem = ideal->Get("memory_gb").Double(DoubleRange::Positive(kMaxMemoryGbPerServer));
  if (!ideal_mem.ok()) return ideal_mem.status();
  auto speedup = m->Get("speedup").Double(DoubleRange::Positive(kMaxRelativeThroughput));
  if (!speedup.ok()) return speedup.status();
  auto iteration = m->Get("iteration_time_s").Double(DoubleRange::Positive(kMaxIterationTimeS));
  if (!iteration.ok()) return iteration.status();
  spec.iteration_time_s = *iteration;
  absl::Status st;
  st.Update(m->Read("batch", spec.batch, IntRange{1, kMaxBatch}));
  st.Update(m->Read("placement_penalty", spec.placement_penalty,
                    DoubleRange::Positive(kMaxRelativeThroughput)));
  if (!st.ok()) return st;
  auto matrix = ReadThroughput(m->Get("throughput"), cpu_points.size(), mem_points.size());
  if (!matrix.ok()) return matrix.status();
  spec.profile = SensitivityProfile(cpu_points, mem_points, *std::move(matrix),
                                    Resources{1, *ideal_cpus, *ideal_mem, 0}, *speedup);
  if (m->Has("gpu_speed")) {
    auto speeds = m->Get("gpu_speed").OpenMap(kMaxGpuTypes);
    if (!speeds.ok()) return speeds.status();
    for (const auto& [type, value] : *speeds) {
      if (!IsGpuTypeName(type)) return value.Error(absl::StrCat("is not a GPU type name (", kGpuTypeRule, ")"));
      absl::StatusOr<double> speed = value.Double(DoubleRange::Positive(kMaxRelativeThroughput));
      if (!speed.ok()) return speed.status();
      spec.gpu_speed[type] = *speed;
    }
  }
  return spec;
}

}  // namespace

bool IsGpuTypeName(std::string_view type) {
  if (type.empty() || type.size() > kMaxGpuTypeBytes) return false;
  for (char c : type) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) return false;
  }
  return true;
}

absl::StatusOr<Cluster> ParseCluster(const std::string& text, const std::string& source) {
  absl::StatusOr<YamlValue> doc = ParseYaml(text, source);
  if (!doc.ok()) return doc.status();
  absl::StatusOr<YamlMap> root = doc->Map({"servers"});
  if (!root.ok()) return root.status();
  absl::StatusOr<std::vector<YamlValue>> entries = root->Get("servers").List(1, kMaxServers);
  if (!entries.ok()) return entries.status();
  std::vector<ServerSpec> servers;
  for (const YamlValue& entry : *entries) {
    if (absl::Status st = AddServers(entry, servers); !st.ok()) return st;
  }
  return Cluster(std::move(servers));
}

absl::StatusOr<Cluster> LoadClusterFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseCluster(*text, path);
}

absl::StatusOr<ModelZoo> ParseModelZoo(const std::string& text, const std::string& source) {
  absl::StatusOr<YamlValue> doc = ParseYaml(text, source);
  if (!doc.ok()) return doc.status();
  absl::StatusOr<YamlMap> root = doc->Map({"cpu_points", "memory_points_gb", "models", "gpu_type"});
  if (!root.ok()) return root.status();
  auto cpu_points = IncreasingPoints(*root, "cpu_points", kMaxCpusPerServer);
  if (!cpu_points.ok()) return cpu_points.status();
  auto mem_points = IncreasingPoints(*root, "memory_points_gb", kMaxMemoryGbPerServer);
  if (!mem_points.ok()) return mem_points.status();
  absl::StatusOr<std::vector<YamlValue>> entries = root->Get("models").List(1, kMaxModels);
  if (!entries.ok()) return entries.status();
  std::vector<ModelSpec> models;
  std::set<std::string> names;
  for (const YamlValue& entry : *entries) {
    absl::StatusOr<ModelSpec> model = ReadModel(entry, *cpu_points, *mem_points, names);
    if (!model.ok()) return model.status();
    models.push_back(*std::move(model));
  }
  std::string base_gpu_type;
  if (root->Has("gpu_type")) {
    absl::StatusOr<std::string> type = ReadGpuType(root->Get("gpu_type"));
    if (!type.ok()) return type.status();
    base_gpu_type = *std::move(type);
  }
  return ModelZoo(std::move(models), std::move(base_gpu_type));
}

absl::StatusOr<ModelZoo> LoadModelZooFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseModelZoo(*text, path);
}

}  // namespace synergy
