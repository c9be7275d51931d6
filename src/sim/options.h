#pragma once
// Command-line options of `synergy-sim run` and `synergy-sim sweep`, parsed
// and validated before anything runs. Errors name the flag and the value,
// e.g. "--load: 'x' is not a number > 0"; the CLI exits 2 on them.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/job.h"
#include "synergy/mechanism.h"
#include "synergy/placement_state.h"
#include "sim/import/trace_import.h"
#include "synergy/tenant_quotas.h"
#include "synergy/typed_round.h"

namespace synergy::sim {

struct WorkloadOptions {
  // Replay: a trace path. Otherwise the synthetic generator.
  std::string trace_path;
  double load_jobs_per_hour = 0;
  uint64_t seed = 42;
  std::array<int, 3> split_percent{20, 70, 10};
  bool multi_gpu = false;
  JobId measure_from = 4000;  // the reference's default window
  JobId measure_to = 5000;
};

struct CommonOptions {
  std::string cluster_path;  // empty: the embedded default-128 cluster
  std::string models_path;   // empty: the embedded model zoo
  std::string policy;
  double round_s = 300;
  bool reference_compatible = false;
  GpuPlacement gpu_placement = GpuPlacement::kConsolidate;  // --placement
  double restart_cost_s = 0;     // --restart-cost (default mode only)
  bool resize_in_place = false;  // --resize-in-place
  bool keep_leases = false;      // --keep-leases (implied by the two above)
  // --launch-between-rounds on|off: on by default, off with
  // --reference-compatible (synergy/between_rounds.h).
  bool launch_between_rounds = true;
  // --type-choice: how a job's GPU type is chosen on a cluster of several.
  TypeChoice type_choice = TypeChoice::kFirstFit;
  int opt_branch_nodes = MechanismOptions{}.opt_branch_nodes;              // --opt-branch-nodes
  int opt_simplex_iterations = MechanismOptions{}.opt_simplex_iterations;  // --opt-simplex-iterations
  std::string out_dir;
  // --tenants vision=8:borrow,nlp=8: tenants' GPU quotas (synergy/
  // tenant_quotas.h), by the trace's tenant column; a tenant not named has
  // none. Default mode only.
  std::vector<std::string> tenant_names;
  std::vector<TenantQuota> tenant_quotas;
  // --fair-share-half-life-h H: fair share (SimConfig::fair_share_half_life_s);
  // 0 = off.
  double fair_share_half_life_h = 0;
  // nullopt: draw progress when stderr is a terminal.
  std::optional<bool> progress;
};

struct RunOptions {
  CommonOptions common;
  WorkloadOptions workload;
  std::string mechanism;
  std::string record_path;
  std::string decisions_path;  // --decisions: every round's assignments, as CSV
};

struct SweepOptions {
  CommonOptions common;
  WorkloadOptions workload;  // load_jobs_per_hour unused
  std::vector<double> loads;
  std::vector<std::string> mechanisms;
  // Every point is run once per seed (--seeds 1,2,3; default: --seed's);
  // the plots show the mean with the spread over seeds as error bars.
  std::vector<uint64_t> seeds;
};

absl::StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args);
absl::StatusOr<SweepOptions> ParseSweepOptions(const std::vector<std::string>& args);

// synergy-sim import FORMAT --in FILE ... (trace_import.h); models_path
// names the zoo ("" the embedded one).
absl::StatusOr<ImportOptions> ParseImportOptions(const std::vector<std::string>& args);
std::string ImportUsage();

std::string RunUsage();
std::string SweepUsage();

}  // namespace synergy::sim
