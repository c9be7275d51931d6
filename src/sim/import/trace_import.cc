#include "sim/import/trace_import.h"

#include <filesystem>
#include <fstream>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/import/cluster_from_nodes.h"
#include "sim/import/gpu_model_table.h"
#include "sim/import/job_work.h"
#include "sim/import/json_records.h"
#include "sim/import/line_reader.h"
#include "sim/import/table_rows.h"
#include "sim/import/trace_format.h"
#include "sim/trace.h"
#include "synergy/config_loader.h"
#include "synergy/default_configs.h"
#include "synergy/quote.h"
#include "synergy/yaml_reader.h"

namespace synergy::sim {
namespace {

// What both passes share: the rules and the cluster.
struct Importer {
  const ImportOptions& options;
  const ModelZoo& zoo;
  const TraceFormat& format;
  const GpuModelTable& table;
  const Cluster& cluster;
  const ModelChooser& models;
};

// A kept job's request must fit the cluster: on one server where one has
// its GPUs, else GPU by GPU on the largest. The error names the column
// that asks too much: GPUs where no server (or the cluster) has them, else
// CPUs or memory.
absl::Status CheckFits(const ImportedJob& job, const TraceFormat& format, const Cluster& cluster,
                       const std::string& cluster_name) {
  const Resources& largest = cluster.largest_server();
  const double g = job.gpus;
  bool gpus_fit = false, cpus_fit = false, mem_fit = false, fits = false;
  if (job.gpus <= largest.gpus) {
    for (const ServerSpec& s : cluster.servers()) {
      const Resources& c = s.capacity;
      if (c.gpus < job.gpus) continue;
      gpus_fit = true;
      cpus_fit = cpus_fit || c.cpus >= job.cpus;
      mem_fit = mem_fit || c.mem_gb >= job.mem_gb;
      fits = fits || (c.cpus >= job.cpus && c.mem_gb >= job.mem_gb);
    }
  } else {
    // A job runs on servers of one GPU type (as the simulator's trace
    // reader checks).
    gpus_fit = job.gpus <= (cluster.heterogeneous() ? LargestGpuType(cluster) : cluster.total().gpus);
    cpus_fit = job.cpus / g <= largest.cpus / largest.gpus;
    mem_fit = job.mem_gb / g <= largest.mem_gb / largest.gpus;
    fits = gpus_fit && cpus_fit && mem_fit;
  }
  if (fits) return absl::OkStatus();
  const TraceFormat::RequestColumns columns = format.request_columns();
  const std::string& column = !gpus_fit ? columns.gpus : !cpus_fit ? columns.cpus : columns.mem;
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: the job (%d GPUs, %g cores, %g GB) is larger than any server of %s (the largest: %d GPUs, %g cores, "
      "%g GB)",
      column.empty() ? "request" : column, job.gpus, job.cpus, job.mem_gb, cluster_name, largest.gpus, largest.cpus,
      largest.mem_gb));
}

// Every job of the input as the format reads it: the rows of a CSV table,
// or the records of a JSON array (Philly), counted as its lines.
absl::Status ForEachJob(const Importer& in, TableAccount& table,
                        const std::function<absl::Status(ImportedRow, int64_t)>& job) {
  const std::string& path = in.options.in_path;
  if (in.format.json_records()) {
    table.path = path;
    return ForEachJsonRecord(path, [&](const std::string& text, int64_t line) -> absl::Status {
      ++table.lines;
      auto doc = ParseYaml(text, "job record");
      if (!doc.ok()) return doc.status();
      auto row = in.format.ReadRecord(*doc);
      if (!row.ok()) return row.status();
      return job(*std::move(row), line);
    });
  }
  TableShape shape{in.format.columns(), in.format.header_required(), in.format.name()};
  return ForEachRow(path, shape, table,
                    [&](const std::vector<absl::string_view>& fields, int64_t line) -> absl::Status {
                      auto row = in.format.Read(fields);
                      if (!row.ok()) return row.status();
                      return job(*std::move(row), line);
                    });
}

// A row's job as the importer keeps it, or nullopt where it is dropped
// (counted); an error for a job that fits no server (ToSpec refuses an
// unknown GPU model).
absl::StatusOr<std::optional<ImportedJob>> Keep(const Importer& in, ImportedRow row, ImportAccount& account) {
  if (!row.job) {
    ++account.jobs.dropped[row.dropped];
    return std::nullopt;
  }
  if (row.job->failed && !in.options.keep_failed) {
    ++account.jobs.dropped["failed"];
    return std::nullopt;
  }
  if (absl::Status st = CheckFits(*row.job, in.format, in.cluster,
                                  in.options.nodes_path.empty() ? account.cluster : in.options.nodes_path);
      !st.ok())
    return st;
  return std::move(row.job);
}

// What the simulator's trace holds (trace.h's bounds): a job outside them
// is refused here, naming the column, rather than written and refused on
// replay.
absl::Status CheckTraceBounds(const ImportedJob& job, const TraceFormat& format) {
  const TraceFormat::RequestColumns columns = format.request_columns();
  auto out_of = [](const std::string& column, double value, double max, const char* what) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: %.17g %s is past the simulator's bound of %g", column, value, what, max));
  };
  if (job.duration_s > kMaxTraceDurationS) return out_of("run time", job.duration_s, kMaxTraceDurationS, "s");
  if (job.cpus > kMaxRequestedCpus) return out_of(columns.cpus, job.cpus, kMaxRequestedCpus, "cores");
  if (job.mem_gb > kMaxRequestedMemGb) return out_of(columns.mem, job.mem_gb, kMaxRequestedMemGb, "GB");
  return absl::OkStatus();
}

// The simulator's record of a kept job.
absl::StatusOr<JobSpec> ToSpec(const Importer& in, const ImportedJob& job, int64_t index, double origin) {
  JobSpec spec;
  spec.id = index;
  spec.model = in.models.ModelFor(index, job);
  spec.arrival_s = job.submit_s - origin;
  if (absl::Status st = CheckTraceBounds(job, in.format); !st.ok()) return st;
  spec.gpus = job.gpus;
  spec.requested_cpus = job.cpus;
  spec.requested_mem_gb = job.mem_gb;
  spec.gpu_fraction = job.gpu_fraction;
  auto type = in.table.TypeOfAny(job.gpu_models);
  if (!type.ok()) return type.status();
  spec.gpu_type = *type;
  spec.duration_s = job.duration_s;
  spec.user = job.user;
  spec.tenant = job.tenant;
  auto iterations = IterationsForDuration(in.zoo, spec.model, job, spec.gpu_type, in.cluster);
  if (!iterations.ok()) return iterations.status();
  spec.iterations = *iterations;
  if (!(spec.iterations > 0) || spec.iterations > kMaxTraceIterations) {
    return absl::InvalidArgumentError(
        absl::StrFormat("duration: %g s makes %g iterations of %s, past the trace's "
                        "bound of %g",
                        job.duration_s, spec.iterations, in.zoo.model(spec.model).name, kMaxTraceIterations));
  }
  return spec;
}

// The first pass: every line checked, every kept job's record made; the
// earliest kept arrival.
absl::StatusOr<double> CheckAll(const Importer& in, ImportAccount& account) {
  double origin = INFINITY;
  double latest = -INFINITY;
  int64_t latest_line = 0;
  int64_t index = 0;
  absl::Status st = ForEachJob(in, account.jobs, [&](ImportedRow row, int64_t line) -> absl::Status {
    auto job = Keep(in, std::move(row), account);
    if (!job.ok()) return job.status();
    if (!*job) return absl::OkStatus();
    origin = std::min(origin, (*job)->submit_s);
    if ((*job)->submit_s > latest) latest = (*job)->submit_s, latest_line = line;
    // Its record too (at arrival 0: the arrivals' span is checked below),
    // so that the second pass cannot fail on a job.
    auto spec = ToSpec(in, **job, index++, (*job)->submit_s);
    return spec.ok() ? absl::OkStatus() : spec.status();
  });
  if (!st.ok()) return st;
  if (origin == INFINITY) {
    return absl::InvalidArgumentError(absl::StrCat(in.options.in_path, ": no job to import (", account.jobs.lines,
                                                   " lines; import.json would say why)"));
  }
  if (latest - origin > kMaxTraceArrivalS) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s:%d: submit time: %.17g s after the first job, past the simulator's bound of %g",
                        in.options.in_path, latest_line, latest - origin, kMaxTraceArrivalS));
  }
  return origin;
}

// The second pass: trace.csv's text, streamed to `out`.
absl::Status WriteAll(const Importer& in, double origin, std::ofstream& out, ImportAccount& account) {
  ImportAccount again;  // the first pass counted the lines already
  again.cluster = account.cluster;
  int64_t index = 0;
  out << TraceHeaderLine();
  return ForEachJob(in, again.jobs, [&](ImportedRow row, int64_t) -> absl::Status {
    auto job = Keep(in, std::move(row), again);
    if (!job.ok()) return job.status();
    if (!*job) return absl::OkStatus();
    auto spec = ToSpec(in, **job, index++, origin);
    if (!spec.ok()) return spec.status();
    ++account.jobs.kept;
    ++account.jobs_by_model[in.zoo.model(spec->model).name];
    if ((*job)->gpu_fraction < 1) ++account.gpu_shares_rounded_up;
    if ((*job)->failed) ++account.failed_kept;
    if ((*job)->times_borrowed) ++account.times_borrowed;
    out << FormatTraceRow(*spec, in.zoo);
    return out ? absl::OkStatus() : absl::PermissionDeniedError("cannot write trace.csv");
  });
}

absl::Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  return out ? absl::OkStatus() : absl::PermissionDeniedError(absl::StrCat(path.string(), ": cannot write"));
}

struct Inputs {
  std::optional<GpuModelTable> table;
  std::optional<Cluster> cluster;
  std::string cluster_yaml;  // "" without a machine list
};

absl::StatusOr<Inputs> LoadInputs(const ImportOptions& o, const ModelZoo& zoo, const TraceFormat& format,
                                  ImportAccount& account) {
  Inputs in;
  auto table = o.gpu_models_path.empty() ? GpuModelTable::Default(zoo) : [&]() -> absl::StatusOr<GpuModelTable> {
    auto text = ReadTextFile(o.gpu_models_path);
    if (!text.ok()) return text.status();
    return GpuModelTable::Parse(*text, o.gpu_models_path, zoo);
  }();
  if (!table.ok()) return table.status();
  in.table = *std::move(table);
  account.gpu_model_table = in.table->source();
  absl::StatusOr<Cluster> cluster;
  if (!o.nodes_path.empty()) {
    auto yaml = ClusterYamlFromNodes(format, o.nodes_path, *in.table, account);
    if (!yaml.ok()) return yaml.status();
    in.cluster_yaml = *yaml;
    account.cluster = (std::filesystem::path(o.out_dir) / "cluster.yaml").string();
    cluster = ParseCluster(in.cluster_yaml, account.cluster);
  } else if (!o.cluster_path.empty()) {
    account.cluster = o.cluster_path;
    cluster = LoadClusterFile(o.cluster_path);
  } else {
    account.cluster = "<embedded default-128.yaml>";
    cluster = DefaultCluster();
  }
  if (!cluster.ok()) return cluster.status();
  in.cluster = *std::move(cluster);
  return in;
}

// The format's reader; for openb, the packing variants' where the table's
// header is theirs.
absl::StatusOr<std::unique_ptr<TraceFormat>> FormatFor(const ImportOptions& o, ImportAccount& account) {
  bool packing = false;
  if (o.format == "openb") {
    auto reader = LineReader::Open(o.in_path);
    if (!reader.ok()) return reader.status();
    std::string first;
    auto read = (*reader)->Next(first);
    if (!read.ok()) return read.status();
    packing = *read && first == kOpenbPackingHeader;
  }
  if (packing && o.times_path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(o.in_path, ":1: header: '", kOpenbPackingHeader,
                                                   "': openb's packing variant has no times: give --times "
                                                   "openb_pod_list_default.csv, whose pods' times it takes"));
  }
  if (packing) return MakeOpenbPackingFormat(o.times_path, o.models.seed, account.times);
  if (!o.times_path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--times: only for openb's packing variants (tables whose header is ", kOpenbPackingHeader, ")"));
  }
  return MakeTraceFormat(o.format);
}

}  // namespace

absl::StatusOr<ImportAccount> ImportTrace(const ImportOptions& o, const ModelZoo& zoo) {
  ImportAccount account;
  account.format = o.format;
  auto format = FormatFor(o, account);
  if (!format.ok()) return format.status();
  auto inputs = LoadInputs(o, zoo, **format, account);
  if (!inputs.ok()) return inputs.status();
  ModelRuleSettings rules = o.models;
  rules.rule = o.model_rule.value_or((*format)->records_cpus() ? ModelRule::kRequest : ModelRule::kSplit);
  auto models = ModelChooser::Make(zoo, rules);
  if (!models.ok()) return models.status();
  account.model_rule = std::string(ModelRuleName(rules.rule));
  account.seed = rules.seed;
  account.split_percent = rules.split_percent;
  const Importer in{o, zoo, **format, *inputs->table, *inputs->cluster, *models};
  auto origin = CheckAll(in, account);
  if (!origin.ok()) return origin.status();
  account.time_origin_s = *origin;
  const std::filesystem::path dir(o.out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(o.out_dir, ": ", ec.message()));
  const std::filesystem::path trace_tmp = dir / "trace.csv.tmp";
  std::ofstream out(trace_tmp, std::ios::trunc);
  absl::Status st = out ? WriteAll(in, *origin, out, account)
                        : absl::PermissionDeniedError(absl::StrCat(trace_tmp.string(), ": cannot write"));
  out.close();
  if (st.ok() && !out) st = absl::PermissionDeniedError(absl::StrCat(trace_tmp.string(), ": cannot write"));
  if (st.ok() && !inputs->cluster_yaml.empty()) st = WriteFile(dir / "cluster.yaml.tmp", inputs->cluster_yaml);
  if (st.ok()) st = WriteFile(dir / "import.json.tmp", ImportJson(account));
  for (const char* name : {"trace.csv", "cluster.yaml", "import.json"}) {
    const std::filesystem::path tmp = dir / absl::StrCat(name, ".tmp");
    if (!std::filesystem::exists(tmp)) continue;
    if (st.ok()) {
      std::filesystem::rename(tmp, dir / name, ec);
      if (ec) st = absl::PermissionDeniedError(absl::StrCat((dir / name).string(), ": ", ec.message()));
    } else {
      std::filesystem::remove(tmp, ec);
    }
  }
  if (!st.ok()) return st;
  return account;
}

}  // namespace synergy::sim
