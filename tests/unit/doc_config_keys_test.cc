// Every key a YAML example shows is one its reader accepts: configs/*.yaml,
// configs/jobs/*.yaml and the ```yaml blocks of README.md and docs/*.md,
// each read as synergyd.yaml, synergy-node.yaml or a job spec (by its
// top-level keys). The readers say which keys they know: a probe key put
// into each map of an example is refused with "unknown field (fields:
// ...)", which lists them. A map whose probe is taken (env:, accounts:)
// holds free keys and is not checked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "daemon/server/config.h"
#include "node/node_config.h"
#include "service/job_spec.h"
#include "yaml-cpp/yaml.h"

namespace synergy {
namespace {

constexpr const char* kProbe = "zz_probe_key";

struct Example {
  std::string where;  // file, and line of a doc's block
  std::string text;
};

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The ```yaml blocks of a Markdown file, unindented.
std::vector<Example> BlocksOf(const std::filesystem::path& path) {
  std::vector<Example> out;
  std::istringstream lines(ReadFile(path));
  std::string line, block;
  int number = 0, start = 0;
  size_t indent = 0;
  bool in = false;
  while (std::getline(lines, line)) {
    ++number;
    const size_t fence = line.find("```");
    if (!in && fence != std::string::npos && line.substr(fence) == "```yaml") {
      in = true;
      indent = fence;
      start = number;
      block.clear();
    } else if (in && fence != std::string::npos) {
      in = false;
      out.push_back({path.filename().string() + ":" + std::to_string(start), block});
    } else if (in) {
      block += (line.size() >= indent ? line.substr(indent) : std::string()) + "\n";
    }
  }
  return out;
}

std::vector<Example> AllExamples() {
  const std::filesystem::path root(SYNERGY_SOURCE_DIR);
  std::vector<Example> out;
  for (const char* file : {"configs/synergyd.yaml", "configs/synergy-node.yaml"}) {
    out.push_back({file, ReadFile(root / file)});
  }
  for (const auto& e : std::filesystem::directory_iterator(root / "configs/jobs")) {
    if (e.path().extension() == ".yaml")
      out.push_back({"configs/jobs/" + e.path().filename().string(), ReadFile(e.path())});
  }
  std::vector<std::filesystem::path> docs = {root / "README.md"};
  for (const auto& e : std::filesystem::directory_iterator(root / "docs")) {
    if (e.path().extension() == ".md") docs.push_back(e.path());
  }
  for (const auto& doc : docs) {
    for (Example& b : BlocksOf(doc)) out.push_back(std::move(b));
  }
  return out;
}

using Reader = std::function<absl::Status(const std::string& text)>;

// The reader of an example, by its top-level keys; null when it is none
// of the three (a cluster, a fragment).
Reader ReaderOf(const YAML::Node& root) {
  if (!root.IsMap()) return nullptr;
  auto has = [&](const char* key) { return static_cast<bool>(root[key]); };
  if (has("scheduler") || has("state_dir") || has("cpu_slots") || has("join_token")) {
    return [](const std::string& text) { return node::ParseNodeConfig(text, "example", node::NodeConfig{}).status(); };
  }
  if (has("listen") || has("store") || has("state_db") || has("auth") || has("executor") || has("policy") ||
      has("tls") || has("round_s")) {
    return [](const std::string& text) {
      return daemon::ParseDaemonConfig(text, "example", daemon::DaemonConfig{}).status();
    };
  }
  if (has("command") || has("iterations") || has("uses_agent") || has("model")) {
    return [](const std::string& text) { return service::ParseJobSpecYaml(text, "example").status(); };
  }
  return nullptr;
}

// Keys of each map of `node`, by where the map is (a path of keys and
// sequence indexes).
struct MapAt {
  std::vector<std::string> path;  // "#0" for a sequence's first item
  std::vector<std::string> keys;
};
void CollectMaps(const YAML::Node& node, std::vector<std::string> path, std::vector<MapAt>& out) {
  if (node.IsMap()) {
    MapAt m{path, {}};
    for (const auto& kv : node) {
      m.keys.push_back(kv.first.Scalar());
      std::vector<std::string> child = path;
      child.push_back(kv.first.Scalar());
      CollectMaps(kv.second, child, out);
    }
    out.push_back(std::move(m));
  } else if (node.IsSequence() && node.size() > 0) {
    std::vector<std::string> child = path;
    child.push_back("#0");
    CollectMaps(node[0], child, out);
  }
}

// `node` with the probe key first in its map at `path` (first: a reader
// refuses a map's first unknown key, and the probe must be that one).
YAML::Node WithProbeAt(const YAML::Node& node, const std::vector<std::string>& path, size_t depth) {
  if (depth == path.size()) {
    YAML::Node probed(YAML::NodeType::Map);
    probed[kProbe] = 1;
    for (const auto& kv : node) probed[kv.first] = kv.second;
    return probed;
  }
  YAML::Node copy = YAML::Clone(node);
  const std::string& step = path[depth];
  if (step[0] == '#') {
    copy[0] = WithProbeAt(node[0], path, depth + 1);
  } else {
    copy[step] = WithProbeAt(node[step], path, depth + 1);
  }
  return copy;
}

std::string WithProbe(const std::string& text, const std::vector<std::string>& path) {
  return YAML::Dump(WithProbeAt(YAML::Load(text), path, 0));
}

// The keys the reader knows in the map at `path`, from its refusal of the
// probe; empty where the probe was taken or refused for something else.
std::set<std::string> KnownKeys(const Reader& read, const std::string& text, const std::vector<std::string>& path,
                                std::string& other_refusal) {
  const absl::Status st = read(WithProbe(text, path));
  const std::string message(st.message());
  const std::string marker = "unknown field (fields: ";
  const size_t at = message.find(marker);
  if (at == std::string::npos || message.find(kProbe) == std::string::npos) {
    other_refusal = message;
    return {};
  }
  const size_t end = message.find(')', at);
  std::set<std::string> known;
  for (absl::string_view k : absl::StrSplit(message.substr(at + marker.size(), end - at - marker.size()), ", ")) {
    known.insert(std::string(k));
  }
  return known;
}

// Keys of `example` its reader refuses, as "PATH.KEY"; `checked` counts
// the keys checked.
std::vector<std::string> RefusedKeys(const Example& example, int& checked) {
  const YAML::Node root = YAML::Load(example.text);
  const Reader read = ReaderOf(root);
  if (!read) return {};
  std::vector<MapAt> maps;
  CollectMaps(root, {}, maps);
  std::vector<std::string> refused;
  for (const MapAt& m : maps) {
    std::string other;
    const std::set<std::string> known = KnownKeys(read, example.text, m.path, other);
    if (known.empty()) continue;  // free keys, or not reached
    for (const std::string& key : m.keys) {
      ++checked;
      if (!known.count(key)) {
        std::string where;
        for (const std::string& step : m.path) where += step + ".";
        refused.push_back(where + key);
      }
    }
  }
  return refused;
}

TEST(DocConfigKeys, EveryKeyAnExampleShowsIsOneItsReaderAccepts) {
  int checked = 0, examples = 0;
  for (const Example& e : AllExamples()) {
    const int before = checked;
    for (const std::string& key : RefusedKeys(e, checked)) ADD_FAILURE() << e.where << ": '" << key << "' is refused";
    if (checked > before) ++examples;
  }
  // The three configs in configs/ and the examples of docs/deploy.md,
  // docs/security.md and docs/slurm.md at least.
  EXPECT_GE(examples, 8);
  EXPECT_GE(checked, 80);
}

TEST(DocConfigKeys, AKeyOfTheWrongReaderIsCaught) {
  // The trap that was in configs/jobs/image-agent.yaml's header: the node's
  // key is job_env_passthrough.
  int checked = 0;
  const Example node{"test", "name: n1\nscheduler: 127.0.0.1:50051\nenv_passthrough: [PYTHONPATH]\n"};
  EXPECT_THAT(RefusedKeys(node, checked), ::testing::ElementsAre("env_passthrough"));
  const Example daemon{"test", "listen: 127.0.0.1:50051\ntls: {cert: a, key: b, ca: c}\n"};
  EXPECT_THAT(RefusedKeys(daemon, checked), ::testing::ElementsAre("tls.ca"));
}

}  // namespace
}  // namespace synergy
