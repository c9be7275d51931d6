#include "synergy/config_loader.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "yaml-cpp/yaml.h"

namespace synergy {
namespace {

// Formats "file:line: field: message" (line from the node's mark, 1-based).
absl::Status Error(const std::string& source, const YAML::Node& node,
                   const std::string& field, const std::string& message) {
  int line = node.IsDefined() && node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
  std::string where = line > 0 ? absl::StrCat(source, ":", line) : source;
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", field, ": ", message));
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

absl::StatusOr<YAML::Node> ParseYaml(const std::string& text, const std::string& source) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root.IsMap()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ":1: document: expected a mapping at the top level"));
    }
    return root;
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ":", e.mark.line + 1, ": malformed YAML: ", e.msg));
  }
}

std::string Scalar(const YAML::Node& node) {
  return node.IsScalar() ? absl::StrCat("'", node.Scalar(), "'") : "a non-scalar value";
}

absl::StatusOr<double> Number(const std::string& source, const YAML::Node& parent,
                              const std::string& key, const std::string& field,
                              bool positive = true) {
  YAML::Node node = parent[key];
  if (!node.IsDefined()) return Error(source, parent, field, "missing");
  double value = 0;
  try {
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    return Error(source, node, field, absl::StrCat(Scalar(node), " is not a number"));
  }
  if (!std::isfinite(value) || (positive && value <= 0) || value < 0) {
    return Error(source, node, field,
                 absl::StrCat(Scalar(node), positive ? " must be > 0" : " must be >= 0"));
  }
  return value;
}

absl::StatusOr<int> PositiveInt(const std::string& source, const YAML::Node& parent,
                                const std::string& key, const std::string& field) {
  YAML::Node node = parent[key];
  if (!node.IsDefined()) return Error(source, parent, field, "missing");
  long long value = 0;
  try {
    value = node.as<long long>();
  } catch (const YAML::Exception&) {
    return Error(source, node, field, absl::StrCat(Scalar(node), " is not an integer"));
  }
  if (value <= 0 || value > 1000000) {
    return Error(source, node, field, absl::StrCat(Scalar(node), " must be a positive integer"));
  }
  return static_cast<int>(value);
}

absl::Status CheckKeys(const std::string& source, const YAML::Node& map,
                       const std::string& field, const std::set<std::string>& allowed) {
  for (const auto& kv : map) {
    std::string key = kv.first.as<std::string>();
    if (!allowed.count(key)) {
      return Error(source, kv.first, absl::StrCat(field, key), "unknown field");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<double>> IncreasingList(const std::string& source,
                                                   const YAML::Node& root,
                                                   const std::string& key) {
  YAML::Node node = root[key];
  if (!node.IsDefined()) return Error(source, root, key, "missing");
  if (!node.IsSequence() || node.size() == 0) {
    return Error(source, node, key, "must be a non-empty list of numbers");
  }
  std::vector<double> out;
  for (size_t i = 0; i < node.size(); ++i) {
    std::string field = absl::StrCat(key, "[", i, "]");
    double v = 0;
    try {
      v = node[i].as<double>();
    } catch (const YAML::Exception&) {
      return Error(source, node[i], field, absl::StrCat(Scalar(node[i]), " is not a number"));
    }
    if (!(v > 0) || (!out.empty() && v <= out.back())) {
      return Error(source, node[i], field,
                   absl::StrCat(Scalar(node[i]), " must be > 0 and above the previous point"));
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

absl::StatusOr<Cluster> ParseCluster(const std::string& text, const std::string& source) {
  absl::StatusOr<YAML::Node> parsed = ParseYaml(text, source);
  if (!parsed.ok()) return parsed.status();
  const YAML::Node& root = *parsed;
  if (auto s = CheckKeys(source, root, "", {"servers"}); !s.ok()) return s;
  YAML::Node list = root["servers"];
  if (!list.IsDefined()) return Error(source, root, "servers", "missing");
  if (!list.IsSequence() || list.size() == 0) {
    return Error(source, list, "servers", "must be a non-empty list");
  }
  std::vector<ServerSpec> servers;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& entry = list[i];
    const std::string field = absl::StrCat("servers[", i, "].");
    if (!entry.IsMap()) return Error(source, entry, absl::StrCat("servers[", i, "]"), "must be a mapping");
    if (auto s = CheckKeys(source, entry, field,
                           {"name", "count", "gpus", "cpus", "memory_gb", "storage_mbps"});
        !s.ok()) {
      return s;
    }
    int count = 1;
    if (entry["count"].IsDefined()) {
      auto c = PositiveInt(source, entry, "count", field + "count");
      if (!c.ok()) return c.status();
      count = *c;
    }
    auto gpus = PositiveInt(source, entry, "gpus", field + "gpus");
    if (!gpus.ok()) return gpus.status();
    auto cpus = Number(source, entry, "cpus", field + "cpus");
    if (!cpus.ok()) return cpus.status();
    auto mem = Number(source, entry, "memory_gb", field + "memory_gb");
    if (!mem.ok()) return mem.status();
    double storage = 0;
    if (entry["storage_mbps"].IsDefined()) {
      auto st = Number(source, entry, "storage_mbps", field + "storage_mbps", false);
      if (!st.ok()) return st.status();
      storage = *st;
    }
    std::string name = entry["name"].IsDefined() ? entry["name"].as<std::string>()
                                                 : std::string("server");
    for (int k = 0; k < count; ++k) {
      ServerSpec spec;
      spec.name = count > 1 || !entry["name"].IsDefined()
                      ? absl::StrCat(name, servers.size())
                      : name;
      spec.capacity = Resources{*gpus, *cpus, *mem, storage};
      servers.push_back(std::move(spec));
    }
  }
  return Cluster(std::move(servers));
}

absl::StatusOr<Cluster> LoadClusterFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseCluster(*text, path);
}

absl::StatusOr<ModelZoo> ParseModelZoo(const std::string& text, const std::string& source) {
  absl::StatusOr<YAML::Node> parsed = ParseYaml(text, source);
  if (!parsed.ok()) return parsed.status();
  const YAML::Node& root = *parsed;
  if (auto s = CheckKeys(source, root, "", {"cpu_points", "memory_points_gb", "models"});
      !s.ok()) {
    return s;
  }
  auto cpu_points = IncreasingList(source, root, "cpu_points");
  if (!cpu_points.ok()) return cpu_points.status();
  auto mem_points = IncreasingList(source, root, "memory_points_gb");
  if (!mem_points.ok()) return mem_points.status();
  YAML::Node list = root["models"];
  if (!list.IsDefined()) return Error(source, root, "models", "missing");
  if (!list.IsSequence() || list.size() == 0) {
    return Error(source, list, "models", "must be a non-empty list");
  }
  std::vector<ModelSpec> models;
  std::set<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& m = list[i];
    const std::string field = absl::StrCat("models[", i, "].");
    if (!m.IsMap()) return Error(source, m, absl::StrCat("models[", i, "]"), "must be a mapping");
    if (auto s = CheckKeys(source, m, field,
                           {"name", "task", "ideal", "speedup", "iteration_time_s", "batch",
                            "throughput", "placement_penalty"});
        !s.ok()) {
      return s;
    }
    ModelSpec spec;
    if (!m["name"].IsDefined() || !m["name"].IsScalar() || m["name"].Scalar().empty()) {
      return Error(source, m, field + "name", "missing or empty");
    }
    spec.name = m["name"].Scalar();
    if (!names.insert(spec.name).second) {
      return Error(source, m["name"], field + "name", absl::StrCat("'", spec.name, "' is listed twice"));
    }
    std::string task = m["task"].IsDefined() && m["task"].IsScalar() ? m["task"].Scalar() : "";
    if (task == "image") spec.task = Task::kImage;
    else if (task == "language") spec.task = Task::kLanguage;
    else if (task == "speech") spec.task = Task::kSpeech;
    else return Error(source, m["task"].IsDefined() ? m["task"] : m, field + "task",
                      absl::StrCat("'", task, "' is not one of image, language, speech"));
    YAML::Node ideal = m["ideal"];
    if (!ideal.IsDefined() || !ideal.IsMap()) return Error(source, m, field + "ideal", "missing mapping {cpus, memory_gb}");
    auto icpu = Number(source, ideal, "cpus", field + "ideal.cpus");
    if (!icpu.ok()) return icpu.status();
    auto imem = Number(source, ideal, "memory_gb", field + "ideal.memory_gb");
    if (!imem.ok()) return imem.status();
    auto speedup = Number(source, m, "speedup", field + "speedup");
    if (!speedup.ok()) return speedup.status();
    auto it = Number(source, m, "iteration_time_s", field + "iteration_time_s");
    if (!it.ok()) return it.status();
    spec.iteration_time_s = *it;
    if (m["batch"].IsDefined()) {
      auto b = PositiveInt(source, m, "batch", field + "batch");
      if (!b.ok()) return b.status();
      spec.batch = *b;
    }
    if (m["placement_penalty"].IsDefined()) {
      auto p = Number(source, m, "placement_penalty", field + "placement_penalty");
      if (!p.ok()) return p.status();
      spec.placement_penalty = *p;
    }
    YAML::Node tput = m["throughput"];
    if (!tput.IsDefined() || !tput.IsSequence() || tput.size() != cpu_points->size()) {
      return Error(source, tput.IsDefined() ? tput : m, field + "throughput",
                   absl::StrCat("must have one row per cpu point (", cpu_points->size(), ")"));
    }
    std::vector<std::vector<double>> matrix;
    for (size_t r = 0; r < tput.size(); ++r) {
      const std::string rf = absl::StrCat(field, "throughput[", r, "]");
      if (!tput[r].IsSequence() || tput[r].size() != mem_points->size()) {
        return Error(source, tput[r], rf,
                     absl::StrCat("must have one value per memory point (", mem_points->size(), ")"));
      }
      std::vector<double> row;
      for (size_t c = 0; c < tput[r].size(); ++c) {
        double v = 0;
        try {
          v = tput[r][c].as<double>();
        } catch (const YAML::Exception&) {
          v = -1;
        }
        if (!(v >= 0) || !std::isfinite(v)) {
          return Error(source, tput[r][c], absl::StrCat(rf, "[", c, "]"),
                       absl::StrCat(Scalar(tput[r][c]), " must be a number >= 0"));
        }
        row.push_back(v);
      }
      matrix.push_back(std::move(row));
    }
    spec.profile = SensitivityProfile(*cpu_points, *mem_points, std::move(matrix),
                                      Resources{1, *icpu, *imem, 0}, *speedup);
    models.push_back(std::move(spec));
  }
  return ModelZoo(std::move(models));
}

absl::StatusOr<ModelZoo> LoadModelZooFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  return ParseModelZoo(*text, path);
}

}  // namespace synergy
