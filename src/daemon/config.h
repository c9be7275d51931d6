#pragma once
// synergyd's configuration (configs/synergyd.yaml is the embedded default;
// a file given with --config overrides it field by field).
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace synergy::daemon {

struct DaemonConfig {
  std::string listen = "127.0.0.1:50051";
  std::string metrics_listen = "127.0.0.1:9464";
  std::string state_db = "synergyd.db";
  double round_s = 300;
  std::string policy = "fifo";
  std::string mechanism = "tune";
  std::string models;  // "" = embedded zoo
  double lease_grace_s = 30;
  int heartbeat_interval_ms = 1000;
  double heartbeat_timeout_s = 30;
  int max_retries = 2;
  // How long a job that asks for a profile waits for a whole free node to
  // profile on; after that it is scheduled unprofiled until a round finds
  // it without a lease and a node free.
  double profile_wait_s = 600;
  std::vector<std::string> tokens;
  std::string log_level = "info";
};

// The embedded default, then `file` (if not empty) on top. Errors name the
// file, line and field: "synergyd.yaml:4: round_s: '-3' is not > 0".
absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& file);
// The same from text (tests).
absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source,
                                               DaemonConfig base);

}  // namespace synergy::daemon
