#pragma once
// What an import read, kept and dropped, and the rules it used: written as
// DIR/import.json, so that every line of the input is accounted for
// (lines = header_lines + jobs_kept + the dropped counts).
#include <array>
#include <cstdint>
#include <map>
#include <string>

namespace synergy::sim {

struct TableAccount {
  std::string path;
  int64_t lines = 0;
  int64_t header_lines = 0;
  int64_t kept = 0;                        // jobs, or machines with GPUs
  std::map<std::string, int64_t> dropped;  // by reason
};

struct ImportAccount {
  std::string format;
  TableAccount jobs;
  TableAccount nodes;          // path "" when there was no machine list
  TableAccount times;          // openb's packing variants: the pod list read for times
  int64_t times_borrowed = 0;  // kept jobs whose times are another pod's
  // Kept jobs that asked for a share of a GPU, imported as one whole GPU
  // (the simulator does not share GPUs).
  int64_t gpu_shares_rounded_up = 0;
  int64_t failed_kept = 0;   // --keep-failed
  double time_origin_s = 0;  // the format's clock at arrival 0
  std::string model_rule;
  uint64_t seed = 0;
  std::array<int, 3> split_percent{};
  std::map<std::string, int64_t> jobs_by_model;
  std::map<std::string, std::string> gpu_models_seen;  // trace model -> zoo type
  std::string gpu_model_table;
  std::string cluster;  // the cluster the work was converted on
};

// import.json's text.
std::string ImportJson(const ImportAccount& account);

}  // namespace synergy::sim
