#pragma once
// synergy-node's configuration (configs/synergy-node.yaml is the embedded
// default; --config FILE overrides field by field) and what the machine
// actually offers: GPU ids (declared when none are visible), CPU ids,
// memory.
#include <map>
#include <string>

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace synergy::node {

// Each setting's bounds are checked where it is read: values outside them
// are typing mistakes, or sizes no real server has.
struct NodeConfig {
  std::string name;            // "" = host name; else A-Z a-z 0-9 . _ - (not . or ..)
  std::string scheduler = "127.0.0.1:50051";  // not empty
  std::string address = "127.0.0.1";
  int gpu_count = 0;           // `gpus: N`, 0-1024
  std::vector<int> gpu_ids;    // `gpus: [0, 1]`: distinct ids 0-1023
  std::vector<int> cpu_ids;    // [] = this process's affinity; distinct ids 0-65535
  // 0: jobs are pinned to the CPU ids they are granted. N > 0: the node
  // offers N CPUs as equal shares of the CPUs above; a job granted k of
  // them may run on all of those CPUs, limited by the cpu cgroup to
  // k x (cores / N) cores of CPU time (CFS bandwidth, as Kubernetes CPU
  // limits). For nodes whose cores are fewer than the CPUs the scheduler
  // should weigh, e.g. a 2-core demo machine offering 4.
  int cpu_slots = 0;           // 0-65536
  double memory_gb = 0;        // 0 = MemTotal; finite, at most 1e6
  // The GPUs' type (v100, a100, ...; synergy/config_loader.h
  // IsGpuTypeName); "" = read from the NVIDIA driver
  // (/proc/driver/nvidia/gpus/*/information), else unknown.
  std::string gpu_type;
  std::string log_dir = "synergy-node-logs";
  // Each lease's stdout and stderr file is kept under this many bytes: at
  // the cap it is copied to FILE.1 (replacing an older copy) and emptied,
  // like logrotate's copytruncate. 0: no cap. At most 1 TiB.
  int64_t log_max_bytes = 64ll << 20;
  std::string work_dir;
  // Where the node records the processes it starts (node/lease_records.h),
  // so that after a crash the next synergy-node stops what is left running
  // before it takes new work. "" = nowhere (a crash may leave orphans).
  std::string state_dir = "synergy-node-state";
  // The node's own credential (or SYNERGY_TOKEN), or, for a node not listed
  // in synergyd's auth.nodes, an admin-issued join credential: the node
  // registers with it once and keeps the credential synergyd gives it in
  // credential_file (0600), which it uses from then on. Printable ASCII,
  // at most 4096 bytes (a gRPC header); never echoed in an error.
  std::string token;
  std::string join_token;
  std::string credential_file;
  // TLS to synergyd: its CA, this node's client certificate (mutual TLS),
  // the name synergyd's certificate carries (when `scheduler` is an IP).
  // plaintext: only to a loopback scheduler.
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  std::string tls_server_name;
  bool plaintext = false;
  // Jobs run as their owner's local account: accounts[user], else the
  // account of the same name. Never as root unless allow_root_jobs.
  // run_jobs_as_node_user: every job runs as the node's own account (a
  // single-user machine; with a root node it also needs allow_root_jobs).
  // Both sides 1-64 characters of A-Z a-z 0-9 . _ @ - (an account not
  // starting with -), at most 4096 entries.
  std::map<std::string, std::string> accounts;
  bool allow_root_jobs = false;
  bool run_jobs_as_node_user = false;
  // Variables of the node's environment jobs also get (beyond PATH, the
  // locale, TZ and TMPDIR): POSIX names, not SYNERGY_*, at most 256.
  std::vector<std::string> job_env_passthrough;
  std::string log_level = "info";  // trace | debug | info | warn | error
  std::string log_format = "text";  // text | json (one object a line); UTC, RFC 3339, either way
  // host:port for /metrics, /healthz and /readyz over HTTP; "" = off.
  std::string metrics_listen;
  int heartbeat_interval_ms = 1000;  // until the daemon says otherwise
};

// The embedded default, then `file` (if not empty) on top, field by field.
// Errors have the YAML reader's format (synergy/yaml_reader.h), naming the
// file, line, field and value: "node.yaml:4: gpus: '-1': must be between 0
// and 1024"; unknown keys are refused with the list of known ones.
absl::StatusOr<NodeConfig> LoadNodeConfig(const std::string& file);
// `text` named `source` on top of `base` (an empty text changes nothing).
absl::StatusOr<NodeConfig> ParseNodeConfig(const std::string& text, const std::string& source,
                                           NodeConfig base);

// What this node registers with.
struct NodeOffer {
  std::vector<int> gpu_ids;
  bool gpus_declared = false;  // no GPU devices seen: the configured ids stand as declared
  std::vector<int> cpu_ids;    // what the scheduler hands out (slot numbers with cpu_slots)
  // cpu_slots > 0: the cores the slots share, and the cores one slot is
  // worth; otherwise empty and 0.
  std::vector<int> shared_cores;
  double cores_per_cpu = 0;
  double memory_gb = 0;
  std::string name;
  std::string gpu_type;  // "" unknown
};
absl::StatusOr<NodeOffer> Discover(const NodeConfig& config);

// A GPU type from the driver's model name: lower case, vendor and product
// line words (nvidia, tesla, geforce, quadro) dropped, the first word with
// a digit, cut at its first '-': "Tesla V100-SXM2-16GB" is v100, "NVIDIA
// A100-SXM4-80GB" a100, "Tesla K80" k80. "" when none is a GPU type name.
std::string GpuTypeOfModel(absl::string_view model);
// The type of the first GPU the driver lists under `dir` (each GPU's
// `information` file has a "Model:" line); "" when there is none. GPUs of
// several models: the first's, with `mixed` set.
std::string DetectGpuType(const std::string& dir, bool* mixed = nullptr);

}  // namespace synergy::node
