#pragma once
// synergy-node's configuration (configs/synergy-node.yaml is the embedded
// default; --config FILE overrides field by field) and what the machine
// actually offers: GPU ids (declared when none are visible), CPU ids,
// memory.
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace synergy::node {

struct NodeConfig {
  std::string name;            // "" = host name
  std::string scheduler = "127.0.0.1:50051";
  std::string address = "127.0.0.1";
  int gpu_count = 0;           // `gpus: N`
  std::vector<int> gpu_ids;    // `gpus: [0, 1]`
  std::vector<int> cpu_ids;    // [] = this process's affinity
  double memory_gb = 0;        // 0 = MemTotal
  std::string log_dir = "synergy-node-logs";
  std::string work_dir;
  std::string token;
  std::string log_level = "info";
  int heartbeat_interval_ms = 1000;  // until the daemon says otherwise
};

absl::StatusOr<NodeConfig> LoadNodeConfig(const std::string& file);
absl::StatusOr<NodeConfig> ParseNodeConfig(const std::string& text, const std::string& source,
                                           NodeConfig base);

// What this node registers with.
struct NodeOffer {
  std::vector<int> gpu_ids;
  bool gpus_declared = false;  // no GPU devices seen: the configured ids stand as declared
  std::vector<int> cpu_ids;
  double memory_gb = 0;
  std::string name;
};
absl::StatusOr<NodeOffer> Discover(const NodeConfig& config);

}  // namespace synergy::node
