#pragma once
// synergy-sim import: a public GPU-cluster trace (trace_format.h) as a
// trace the simulator replays, written to a directory:
//   trace.csv     the simulator's named-column format (trace.h): each kept
//                 job with its model (job_models.h), arrival from the
//                 earliest kept job, iterations from its recorded duration
//                 at its recorded request (job_work.h), and what the trace
//                 recorded (requested CPUs and memory, GPU share and type,
//                 duration, user);
//   cluster.yaml  where the input has a machine list (--nodes): its
//                 machines, one server group per shape (cluster_from_nodes.h);
//   import.json   every input line accounted for (import_account.h).
// Tables are read twice, a line at a time (the first pass checks every
// line and finds the earliest arrival, the second writes), so memory does
// not grow with the input. Any bad line stops the import with PATH:LINE:
// FIELD: 'VALUE': why, and nothing is written.
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "sim/import/import_account.h"
#include "sim/import/job_models.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

struct ImportOptions {
  std::string format;
  std::string in_path;
  std::string nodes_path;  // the machine list; "" none
  // openb's packing variants: the pod list whose times their pods take
  // (MakeOpenbPackingFormat); "" none.
  std::string times_path;
  std::string out_dir;
  // The cluster iterations are worked out on when there is no machine
  // list: "" the embedded default-128 (replay on the same cluster).
  std::string cluster_path;
  std::string gpu_models_path;  // "" the embedded configs/traces/gpu-models.yaml
  std::string models_path;      // the zoo, read by the CLI; "" the embedded one
  // Unset: kRequest where the format records CPUs, else kSplit.
  std::optional<ModelRule> model_rule;
  ModelRuleSettings models;
  // Jobs that ended failed, killed or cancelled are dropped ("failed")
  // unless kept: they used the cluster for their recorded time all the same.
  bool keep_failed = false;
};

// Imports; the account written to import.json. Errors: INVALID_ARGUMENT for
// bad input (nothing written), NOT_FOUND for an input that cannot be
// opened, PERMISSION_DENIED when the output cannot be written.
absl::StatusOr<ImportAccount> ImportTrace(const ImportOptions& options, const ModelZoo& zoo);

}  // namespace synergy::sim
