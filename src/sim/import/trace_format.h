#pragma once
// The public GPU-cluster traces synergy-sim imports (trace_import.h), one
// reader per format, each in its own file: what a row of the format's job
// table says of a job, and what a row of its machine list says of a server.
// Readers know only their format; what the importer does with a job (its
// model, its work, which jobs it keeps) is trace_import.cc's.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/import/import_account.h"
#include "synergy/yaml_reader.h"

namespace synergy::sim {

// One job as a trace recorded it.
struct ImportedJob {
  double submit_s = 0;      // on the format's own clock
  double duration_s = 0;    // the time it ran, > 0
  int gpus = 1;             // whole GPUs, >= 1 (a share of one counts as one)
  double gpu_fraction = 1;  // the share of one GPU it asked for, where below one
  double cpus = 0;          // the whole job's; 0: not recorded
  double mem_gb = 0;        // the whole job's; 0: not recorded
  // The GPU models it may run on, as the format names them, '|' between
  // alternatives; "" any.
  std::string gpu_models;
  std::string user;
  std::string tenant;   // its virtual cluster (Helios, Philly: vc), "" none
  bool failed = false;  // it ended failed, killed or cancelled
  // Its times are another job's (openb's packing variants: pods the
  // variant added have none of their own).
  bool times_borrowed = false;
};

// A row of a job table: a job, or the reason it is not one (a CPU-only
// job, one that never started, ...), counted in import.json under it.
struct ImportedRow {
  std::optional<ImportedJob> job;
  std::string dropped;
};

// One machine of a machine list; gpus 0 for a CPU-only one (not imported).
struct ImportedNode {
  std::string gpu_model;
  int gpus = 0;
  double cpus = 0;
  double mem_gb = 0;
};

class TraceFormat {
 public:
  virtual ~TraceFormat() = default;
  virtual std::string name() const = 0;
  // The job table's columns, in order. When its files start with a header
  // naming them (header_required), the first line must be exactly that;
  // otherwise a first line that is exactly that is skipped as a header.
  virtual std::vector<std::string> columns() const = 0;
  virtual bool header_required() const = 0;
  // Whether its jobs carry the CPUs they asked for (the default model rule
  // reads them: job_models.h).
  virtual bool records_cpus() const = 0;
  // The columns that hold a job's GPUs, CPUs and memory (named in the
  // error for a job no server can hold).
  struct RequestColumns {
    std::string gpus, cpus, mem;
  };
  virtual RequestColumns request_columns() const = 0;
  // One row, split at its commas, as many fields as columns(). Errors are
  // "FIELD: 'VALUE': why".
  virtual absl::StatusOr<ImportedRow> Read(const std::vector<absl::string_view>& fields) const = 0;

  // A format whose job table is one JSON array of records (Philly's) says
  // so and reads each record here; its columns() are then unused.
  virtual bool json_records() const { return false; }
  virtual absl::StatusOr<ImportedRow> ReadRecord(const YamlValue& record) const;

  // Its machine list, where it has one (openb's node list, PAI's machine
  // spec): the columns, as columns() above, and one row's machine.
  virtual std::vector<std::string> node_columns() const { return {}; }
  virtual bool node_header_required() const { return false; }
  virtual absl::StatusOr<ImportedNode> ReadNode(const std::vector<absl::string_view>& fields) const;
};

// "openb", "pai2020", "helios", "philly"; INVALID_ARGUMENT naming the known ones.
absl::StatusOr<std::unique_ptr<TraceFormat>> MakeTraceFormat(std::string_view name);
std::vector<std::string> TraceFormatNames();

// The readers, one per file (openb_format.cc, pai2020_format.cc, ...).
std::unique_ptr<TraceFormat> MakeOpenbFormat();
std::unique_ptr<TraceFormat> MakePai2020Format();
std::unique_ptr<TraceFormat> MakeHeliosFormat();
std::unique_ptr<TraceFormat> MakePhillyFormat();

// openb's packing variants (openb_pod_list_multigpu*.csv: name, cpu_milli,
// memory_mib, num_gpu, gpu_milli; no phase, no times), read beside the pod
// list at `times_path` (openb_pod_list_default.csv), whose times each pod of
// the same name takes. A pod the variant added takes those of a pod of the
// list with its GPU count that did not fail (any where none has it), drawn by `seed` and
// its name. The list is held in memory (8,152 pods in openb's); its lines
// are counted in `times`.
inline constexpr char kOpenbPackingHeader[] = "name,cpu_milli,memory_mib,num_gpu,gpu_milli";
absl::StatusOr<std::unique_ptr<TraceFormat>> MakeOpenbPackingFormat(const std::string& times_path, uint64_t seed,
                                                                    TableAccount& times);

}  // namespace synergy::sim
