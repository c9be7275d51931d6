#include "node/node_config.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "service/channel.h"
#include "service/credentials.h"
#include "service/log_settings.h"
#include "service/request_limits.h"
#include "service/request_validation.h"
#include "synergy/config_loader.h"
#include "node/job_account.h"
#include "synergy/default_configs.h"
#include "synergy/quote.h"
#include "synergy/yaml_reader.h"

namespace synergy::node {
namespace {

constexpr char kEmbedded[] = "<embedded synergy-node.yaml>";

// Sizes no server has, refused before anything is allocated for them.
constexpr int kMaxGpus = 1024;  // gpus: N; ids 0-1023
constexpr int kMaxCpuId = 65535;
constexpr size_t kMaxCpus = 65536;
constexpr int kMaxCpuSlots = 65536;
constexpr double kMaxMemoryGb = 1e6;
constexpr size_t kMaxPassthrough = 256;

// token and join_token, when present (service::ReadCredentialYaml: never echoed).
absl::Status ReadCredential(const YamlMap& m, absl::string_view key, std::string& out) {
  if (!m.Has(key)) return absl::OkStatus();
  absl::StatusOr<std::string> text = service::ReadCredentialYaml(m.Get(key));
  if (!text.ok()) return text.status();
  out = *std::move(text);
  return absl::OkStatus();
}

// A list of distinct ids in `range`, each error naming its item.
absl::StatusOr<std::vector<int>> ReadIds(const YamlValue& list, IntRange range, size_t max_items) {
  absl::StatusOr<std::vector<YamlValue>> items = list.List(0, max_items);
  if (!items.ok()) return items.status();
  std::vector<int> ids;
  std::set<int> seen;
  for (const YamlValue& item : *items) {
    absl::StatusOr<int64_t> id = item.Int(range);
    if (!id.ok()) return id.status();
    if (!seen.insert(static_cast<int>(*id)).second) return item.Error("is listed twice");
    ids.push_back(static_cast<int>(*id));
  }
  return ids;
}

// `gpus: N` (a count) or `gpus: [0, 1]` (ids).
absl::Status ReadGpus(const YamlMap& m, NodeConfig& c) {
  if (!m.Has("gpus")) return absl::OkStatus();
  const YamlValue gpus = m.Get("gpus");
  if (gpus.IsSequence()) {
    absl::StatusOr<std::vector<int>> ids = ReadIds(gpus, IntRange{0, kMaxGpus - 1}, kMaxGpus);
    if (!ids.ok()) return ids.status();
    c.gpu_ids = *std::move(ids);
    c.gpu_count = static_cast<int>(c.gpu_ids.size());
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> count = gpus.Int(IntRange{0, kMaxGpus});
  if (!count.ok()) return count.status();
  c.gpu_count = static_cast<int>(*count);
  c.gpu_ids.clear();
  return absl::OkStatus();
}

absl::Status ReadCpus(const YamlMap& m, NodeConfig& c) {
  if (!m.Has("cpus")) return absl::OkStatus();
  absl::StatusOr<std::vector<int>> ids = ReadIds(m.Get("cpus"), IntRange{0, kMaxCpuId}, kMaxCpus);
  if (!ids.ok()) return ids.status();
  c.cpu_ids = *std::move(ids);
  return absl::OkStatus();
}

// job_env_passthrough: POSIX names, not synergy-node's own SYNERGY_* (its
// credential among them).
absl::Status ReadPassthrough(const YamlMap& m, std::vector<std::string>& out) {
  if (!m.Has("job_env_passthrough")) return absl::OkStatus();
  absl::StatusOr<std::vector<YamlValue>> items = m.Get("job_env_passthrough").List(0, kMaxPassthrough);
  if (!items.ok()) return items.status();
  std::vector<std::string> names;
  for (const YamlValue& item : *items) {
    absl::StatusOr<std::string> name = item.String(service::kMaxEnvNameBytes);
    if (!name.ok()) return name.status();
    if (!service::IsPosixEnvName(*name)) return item.Error("is not a POSIX name ([A-Za-z_][A-Za-z0-9_]*)");
    if (absl::StartsWith(*name, "SYNERGY_")) {
      return item.Error(
          "is synergy-node's own (SYNERGY_TOKEN is its credential); jobs get their SYNERGY_* from the lease");
    }
    names.push_back(*std::move(name));
  }
  out = std::move(names);
  return absl::OkStatus();
}

absl::Status ReadSettings(const YamlMap& m, NodeConfig& c) {
  absl::Status st;
  st.Update(m.Read("name", c.name, service::kMaxNodeNameBytes));
  st.Update(m.Read("scheduler", c.scheduler, service::kMaxPathBytes));
  st.Update(m.Read("address", c.address, service::kMaxNodeAddressBytes));
  st.Update(ReadGpus(m, c));
  st.Update(ReadCpus(m, c));
  st.Update(m.Read("cpu_slots", c.cpu_slots, IntRange{0, kMaxCpuSlots}));
  st.Update(m.Read("memory_gb", c.memory_gb, DoubleRange::NonNegative(kMaxMemoryGb)));
  st.Update(m.Read("log_dir", c.log_dir, service::kMaxPathBytes));
  st.Update(m.Read("log_max_bytes", c.log_max_bytes, IntRange{0, 1ll << 40}));
  st.Update(m.Read("work_dir", c.work_dir, service::kMaxPathBytes));
  st.Update(m.Read("state_dir", c.state_dir, service::kMaxPathBytes));
  st.Update(ReadCredential(m, "token", c.token));
  st.Update(ReadCredential(m, "join_token", c.join_token));
  st.Update(m.Read("credential_file", c.credential_file, service::kMaxPathBytes));
  st.Update(m.Read("tls_ca", c.tls_ca, service::kMaxPathBytes));
  st.Update(m.Read("tls_cert", c.tls_cert, service::kMaxPathBytes));
  st.Update(m.Read("tls_key", c.tls_key, service::kMaxPathBytes));
  st.Update(m.Read("tls_server_name", c.tls_server_name, service::kMaxNodeNameBytes));
  st.Update(m.Read("plaintext", c.plaintext));
  st.Update(ReadAccounts(m, c.accounts));
  st.Update(m.Read("allow_root_jobs", c.allow_root_jobs));
  st.Update(m.Read("run_jobs_as_node_user", c.run_jobs_as_node_user));
  st.Update(ReadPassthrough(m, c.job_env_passthrough));
  st.Update(m.Read("log_level", c.log_level, 64));
  st.Update(m.Read("gpu_type", c.gpu_type, kMaxGpuTypeBytes));
  st.Update(m.Read("metrics_listen", c.metrics_listen, service::kMaxNodeAddressBytes));
  st.Update(m.Read("log_format", c.log_format, 64));
  return st;
}

// What a read cannot say.
absl::Status CheckSettings(const YamlMap& m, const NodeConfig& c) {
  if (m.Has("name") && !c.name.empty() && !service::IsNameToken(c.name)) {
    return m.Get("name").Error("is not a node name (A-Z a-z 0-9 . _ -, not . or ..; \"\" = the host name)");
  }
  if (m.Has("scheduler") && c.scheduler.empty()) return m.Get("scheduler").Error("is empty");
  if (m.Has("scheduler") && !service::SplitTargets(c.scheduler, "scheduler").ok()) {
    return m.Get("scheduler").Error("has an empty address (HOST:PORT, or HOST:PORT,HOST:PORT for a leader and its "
                                    "standbys)");
  }
  if (m.Has("gpu_type") && !c.gpu_type.empty() && !IsGpuTypeName(c.gpu_type)) {
    return m.Get("gpu_type").Error(absl::StrCat(kGpuTypeRule, "; \"\" = read from the driver"));
  }
  return service::CheckLogSettings(m, c.log_level, c.log_format);
}

}  // namespace

absl::StatusOr<NodeConfig> ParseNodeConfig(const std::string& text, const std::string& source, NodeConfig base) {
  absl::StatusOr<YamlValue> root = ParseYaml(text, source);
  if (!root.ok()) return root.status();
  if (root->IsNull()) return base;  // an empty file changes nothing
  absl::StatusOr<YamlMap> m = root->Map(
      {"name", "scheduler", "address", "gpus", "cpus", "cpu_slots", "memory_gb", "log_dir", "log_max_bytes",
       "work_dir", "state_dir", "token",
       "join_token", "credential_file", "tls_ca", "tls_cert", "tls_key", "tls_server_name", "plaintext",
       "accounts", "allow_root_jobs", "run_jobs_as_node_user", "job_env_passthrough", "log_level",
       "metrics_listen", "log_format", "gpu_type"});
  if (!m.ok()) return m.status();
  if (absl::Status st = ReadSettings(*m, base); !st.ok()) return st;
  if (absl::Status st = CheckSettings(*m, base); !st.ok()) return st;
  return base;
}

absl::StatusOr<NodeConfig> LoadNodeConfig(const std::string& file) {
  absl::StatusOr<NodeConfig> base = ParseNodeConfig(kDefaultNodeYaml, kEmbedded, NodeConfig{});
  if (!base.ok() || file.empty()) return base;
  absl::StatusOr<std::string> text = ReadTextFile(file);
  if (!text.ok()) return text.status();
  return ParseNodeConfig(*text, file, *std::move(base));
}

absl::StatusOr<NodeOffer> Discover(const NodeConfig& config) {
  NodeOffer offer;
  offer.name = config.name;
  if (offer.name.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof(host) - 1);
    offer.name = host;
  }
  // GPUs: the NVIDIA device files this machine has.
  int visible = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/dev", ec)) {
    const std::string n = entry.path().filename().string();
    if (n.size() > 6 && n.rfind("nvidia", 0) == 0 && std::isdigit(static_cast<unsigned char>(n[6]))) ++visible;
  }
  if (!config.gpu_ids.empty()) {
    offer.gpu_ids = config.gpu_ids;
  } else {
    const int count = config.gpu_count > 0 ? config.gpu_count : visible;
    for (int i = 0; i < count; ++i) offer.gpu_ids.push_back(i);
  }
  offer.gpus_declared = visible < static_cast<int>(offer.gpu_ids.size());
  offer.gpu_type = config.gpu_type.empty() ? DetectGpuType("/proc/driver/nvidia/gpus") : config.gpu_type;
  // CPUs: the configured ids, else what this process may run on.
  if (!config.cpu_ids.empty()) {
    offer.cpu_ids = config.cpu_ids;
  } else {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
      for (int i = 0; i < CPU_SETSIZE; ++i) {
        if (CPU_ISSET(i, &set)) offer.cpu_ids.push_back(i);
      }
    }
  }
  offer.memory_gb = config.memory_gb;
  if (offer.memory_gb == 0) {
    std::ifstream mem("/proc/meminfo");
    std::string key;
    double kb = 0;
    while (mem >> key >> kb) {
      if (key == "MemTotal:") {
        offer.memory_gb = kb / (1024.0 * 1024.0);
        break;
      }
      mem.ignore(1 << 10, '\n');
    }
  }
  if (offer.cpu_ids.empty()) return absl::FailedPreconditionError("cpus: no CPU ids to offer");
  if (config.cpu_slots > 0) {
    offer.shared_cores = std::move(offer.cpu_ids);
    offer.cores_per_cpu = static_cast<double>(offer.shared_cores.size()) / config.cpu_slots;
    offer.cpu_ids.clear();
    for (int i = 0; i < config.cpu_slots; ++i) offer.cpu_ids.push_back(i);
  }
  return offer;
}

std::string GpuTypeOfModel(absl::string_view model) {
  for (absl::string_view word : absl::StrSplit(model, absl::ByAnyChar(" \t"), absl::SkipEmpty())) {
    std::string w = absl::AsciiStrToLower(word);
    if (w == "nvidia" || w == "tesla" || w == "geforce" || w == "quadro") continue;
    if (std::none_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    w = w.substr(0, w.find('-'));
    return IsGpuTypeName(w) ? w : "";
  }
  return "";
}

std::string DetectGpuType(const std::string& dir, bool* mixed) {
  if (mixed != nullptr) *mixed = false;
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    files.push_back((entry.path() / "information").string());
  }
  std::sort(files.begin(), files.end());  // the driver's order is the bus order
  std::string first;
  for (const std::string& file : files) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      if (!absl::StartsWith(line, "Model:")) continue;
      const std::string type = GpuTypeOfModel(absl::string_view(line).substr(6));
      if (first.empty()) {
        first = type;
      } else if (type != first && mixed != nullptr) {
        *mixed = true;
      }
      break;
    }
  }
  return first;
}

}  // namespace synergy::node
