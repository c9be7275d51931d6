#include "node/node_config.h"

#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "synergy/default_configs.h"
#include "yaml-cpp/yaml.h"

namespace synergy::node {
namespace {

absl::Status FieldError(const std::string& source, const YAML::Node& node, const std::string& field,
                        const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(source, ":", node.Mark().line + 1, ": ", field, ": ",
                                                 why));
}

absl::StatusOr<NodeConfig> ParseSettings(const std::string& text, const std::string& source, NodeConfig c) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ":", e.mark.line + 1, ": not valid YAML: ", e.msg));
  }
  if (root.IsNull()) return c;
  if (!root.IsMap()) return absl::InvalidArgumentError(absl::StrCat(source, ": not a map of settings"));
  static const std::set<std::string> known = {"name", "scheduler", "address", "gpus", "cpus", "cpu_slots",
                                              "memory_gb", "log_dir", "work_dir", "token", "join_token",
                                              "credential_file", "tls_ca", "tls_cert", "tls_key",
                                              "tls_server_name", "plaintext", "accounts", "allow_root_jobs",
                                              "run_jobs_as_node_user", "job_env_passthrough", "log_level"};
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ":", kv.first.Mark().line + 1, ": a setting's name must be a plain word"));
    }
    const std::string key = kv.first.Scalar();
    const YAML::Node& v = kv.second;
    if (!known.count(key)) {
      return absl::InvalidArgumentError(absl::StrCat(source, ":", kv.first.Mark().line + 1, ": unknown setting '",
                                                     key, "' (settings: ", absl::StrJoin(known, ", "), ")"));
    }
    try {
      if (key == "name") c.name = v.as<std::string>();
      if (key == "scheduler") c.scheduler = v.as<std::string>();
      if (key == "address") c.address = v.as<std::string>();
      if (key == "log_dir") c.log_dir = v.as<std::string>();
      if (key == "work_dir") c.work_dir = v.as<std::string>();
      if (key == "token") c.token = v.as<std::string>();
      if (key == "join_token") c.join_token = v.as<std::string>();
      if (key == "credential_file") c.credential_file = v.as<std::string>();
      if (key == "tls_ca") c.tls_ca = v.as<std::string>();
      if (key == "tls_cert") c.tls_cert = v.as<std::string>();
      if (key == "tls_key") c.tls_key = v.as<std::string>();
      if (key == "tls_server_name") c.tls_server_name = v.as<std::string>();
      if (key == "plaintext") c.plaintext = v.as<bool>();
      if (key == "accounts") c.accounts = v.as<std::map<std::string, std::string>>();
      if (key == "allow_root_jobs") c.allow_root_jobs = v.as<bool>();
      if (key == "run_jobs_as_node_user") c.run_jobs_as_node_user = v.as<bool>();
      if (key == "job_env_passthrough") c.job_env_passthrough = v.as<std::vector<std::string>>();
      if (key == "log_level") c.log_level = v.as<std::string>();
      if (key == "memory_gb") c.memory_gb = v.as<double>();
      if (key == "cpus") c.cpu_ids = v.as<std::vector<int>>();
      if (key == "cpu_slots") c.cpu_slots = v.as<int>();
      if (key == "gpus") {
        if (v.IsSequence()) {
          c.gpu_ids = v.as<std::vector<int>>();
          c.gpu_count = static_cast<int>(c.gpu_ids.size());
        } else {
          c.gpu_count = v.as<int>();
          c.gpu_ids.clear();
        }
      }
    } catch (const YAML::Exception&) {
      return FieldError(source, v, key, absl::StrCat("'", v.IsScalar() ? v.Scalar() : "...", "' is not valid"));
    }
    if (key == "gpus" && c.gpu_count < 0) return FieldError(source, v, key, "is negative");
    // Sizes no server has are refused before anything is allocated for them.
    if (key == "gpus" && c.gpu_count > 1024) return FieldError(source, v, key, "is more than 1024 GPUs");
    if (key == "cpu_slots" && c.cpu_slots > 65536) return FieldError(source, v, key, "is more than 65536");
    if (key == "memory_gb" && !(c.memory_gb <= 1e6)) return FieldError(source, v, key, "is not a number up to 1e6");
    for (int id : key == "gpus" ? c.gpu_ids : std::vector<int>{}) {
      if (id < 0 || id > 1023) return FieldError(source, v, key, absl::StrCat("GPU id ", id, " is not in 0-1023"));
    }
    if (key == "cpus" && c.cpu_ids.size() > 65536) return FieldError(source, v, key, "lists more than 65536 CPUs");

    if (key == "cpu_slots" && c.cpu_slots < 0) return FieldError(source, v, key, "is negative");
    if (key == "memory_gb" && c.memory_gb < 0) return FieldError(source, v, key, "is negative");
    if (key == "scheduler" && c.scheduler.empty()) return FieldError(source, v, key, "is empty");
    for (int id : key == "cpus" ? c.cpu_ids : std::vector<int>{}) {
      if (id < 0 || id > 65535) return FieldError(source, v, key, absl::StrCat("CPU id ", id, " is not in 0-65535"));
    }
  }
  return c;
}

}  // namespace

absl::StatusOr<NodeConfig> ParseNodeConfig(const std::string& text, const std::string& source, NodeConfig base) {
  try {
    return ParseSettings(text, source, std::move(base));
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(source, ":", e.mark.line + 1, ": not valid: ", e.msg));
  }
}

absl::StatusOr<NodeConfig> LoadNodeConfig(const std::string& file) {
  auto base = ParseNodeConfig(kDefaultNodeYaml, "<embedded synergy-node.yaml>", NodeConfig{});
  if (!base.ok() || file.empty()) return base;
  std::ifstream in(file);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(file, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseNodeConfig(ss.str(), file, *base);
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

}  // namespace synergy::node
