#include "sim/trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "sim/trace_columns.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

// The columns by position without a header, or by name after one
// (trace_columns.h).
using Column = TraceColumn;
constexpr const auto& kColumns = kTraceColumns;
constexpr size_t kPositional = kPositionalTraceColumns;
constexpr const char* kFieldList = "job_id,model,arrival_s,iterations,gpus[,checkpoints]";
// Past any real request: a million CPUs, a billion GB.

const char* NameOf(Column c) { return TraceColumnName(c); }

// "file:line: field: 'value': why", the value quoted, escaped and cut short.
absl::Status LineError(const std::string& source, int64_t line, absl::string_view field,
                       absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(source, ":", line, ": ", field, ": ", QuoteValue(value), ": ", why));
}

bool ParseInt(absl::string_view text, int64_t& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

bool ParseDouble(absl::string_view text, double& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

std::string FormatNumber(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 1e18) return absl::StrFormat("%d", int64_t(v));
  return absl::StrFormat("%.17g", v);
}

// A header line's columns: known names, each once, the required ones all
// there.
absl::StatusOr<std::vector<Column>> HeaderColumns(const std::vector<absl::string_view>& names,
                                                  const std::string& source, int64_t line_no) {
  std::vector<Column> columns;
  std::vector<bool> seen(std::size(kColumns), false);
  for (absl::string_view name : names) {
    const auto* info = std::find_if(std::begin(kColumns), std::end(kColumns),
                                    [&](const TraceColumnInfo& c) { return name == c.name; });
    if (info == std::end(kColumns)) {
      std::vector<std::string> known;
      for (const TraceColumnInfo& c : kColumns) known.push_back(c.name);
      return LineError(source, line_no, "header", name,
                       absl::StrCat("is not a column (", absl::StrJoin(known, ", "), ")"));
    }
    if (seen[static_cast<size_t>(info->column)]) return LineError(source, line_no, "header", name, "appears twice");
    seen[static_cast<size_t>(info->column)] = true;
    columns.push_back(info->column);
  }
  for (const TraceColumnInfo& c : kColumns) {
    if (c.required && !seen[static_cast<size_t>(c.column)]) {
      return LineError(source, line_no, "header", absl::StrJoin(names, ","), absl::StrCat("has no ", c.name, " column"));
    }
  }
  return columns;
}

// One of a job's recorded fields beyond the five (an empty cell: not recorded).
absl::Status ParseRecorded(Column column, absl::string_view v, JobSpec& job, const std::string& source,
                           int64_t line_no) {
  const char* name = NameOf(column);
  switch (column) {
    case Column::kCheckpoints:
      if (v != "0" && v != "1") return LineError(source, line_no, name, v, "is not 0 (a plain process) or 1 (it checkpoints)");
      job.checkpoints = v == "1";
      return absl::OkStatus();
    case Column::kCpus:
      if (!v.empty() && (!ParseDouble(v, job.requested_cpus) || job.requested_cpus < 0 ||
                         job.requested_cpus > kMaxRequestedCpus)) {
        return LineError(source, line_no, name, v, absl::StrCat("is not a number of CPUs from 0 to ", kMaxRequestedCpus));
      }
      return absl::OkStatus();
    case Column::kMemGb:
      if (!v.empty() && (!ParseDouble(v, job.requested_mem_gb) || job.requested_mem_gb < 0 ||
                         job.requested_mem_gb > kMaxRequestedMemGb)) {
        return LineError(source, line_no, name, v, absl::StrCat("is not a number of GB from 0 to ", kMaxRequestedMemGb));
      }
      return absl::OkStatus();
    case Column::kGpuFraction:
      if (!v.empty() && (!ParseDouble(v, job.gpu_fraction) || !(job.gpu_fraction > 0) || job.gpu_fraction > 1)) {
        return LineError(source, line_no, name, v, "is not a share of a GPU in (0, 1]");
      }
      return absl::OkStatus();
    case Column::kDurationS:
      if (!v.empty() && (!ParseDouble(v, job.duration_s) || job.duration_s < 0 || job.duration_s > kMaxTraceDurationS)) {
        return LineError(source, line_no, name, v, absl::StrCat("is not a number of seconds from 0 to ", kMaxTraceDurationS));
      }
      return absl::OkStatus();
    case Column::kTimeLimitS:
      if (!v.empty() &&
          (!ParseDouble(v, job.time_limit_s) || job.time_limit_s < 0 || job.time_limit_s > kMaxTraceDurationS)) {
        return LineError(source, line_no, name, v,
                         absl::StrCat("is not a number of seconds from 0 (none) to ", kMaxTraceDurationS));
      }
      return absl::OkStatus();
    case Column::kGpuType:
    case Column::kUser:
    case Column::kTenant:
      if (!IsPlainTraceName(std::string_view(v.data(), v.size()))) {
        return LineError(source, line_no, name, v,
                         absl::StrCat("is not a name of at most ", kMaxTraceNameBytes,
                                      " printable characters without spaces, commas or quotes"));
      }
      (column == Column::kUser ? job.user : column == Column::kTenant ? job.tenant : job.gpu_type) = std::string(v);
      return absl::OkStatus();
    default:
      return absl::OkStatus();
  }
}

// One line's fields (already split and stripped, one per column) as a job,
// or the error.
absl::StatusOr<JobSpec> ParseJob(const std::vector<absl::string_view>& fields, const std::vector<Column>& columns,
                                 const std::string& source, int64_t line_no, const ModelZoo& zoo,
                                 const Cluster& cluster) {
  JobSpec job;
  for (size_t i = 0; i < fields.size(); ++i) {
    const absl::string_view v = fields[i];
    switch (columns[i]) {
      case Column::kJobId: {
        int64_t id = 0;
        if (!ParseInt(v, id) || id < 0) return LineError(source, line_no, "job_id", v, "is not a non-negative integer");
        job.id = id;
        break;
      }
      case Column::kModel:
        job.model = zoo.Find(std::string(v));
        if (job.model < 0) {
          std::vector<std::string> names;
          for (const ModelSpec& m : zoo.models()) names.push_back(m.name);
          return LineError(source, line_no, "model", v,
                           absl::StrCat("unknown model (the zoo has ", absl::StrJoin(names, ", "), ")"));
        }
        break;
      case Column::kArrival:
        if (!ParseDouble(v, job.arrival_s) || job.arrival_s < 0 || job.arrival_s > kMaxTraceArrivalS) {
          return LineError(source, line_no, "arrival_s", v, absl::StrCat("is not a number between 0 and ", kMaxTraceArrivalS));
        }
        break;
      case Column::kIterations:
        if (!ParseDouble(v, job.iterations) || job.iterations <= 0 || job.iterations > kMaxTraceIterations) {
          return LineError(source, line_no, "iterations", v,
                           absl::StrCat("is not a number > 0 and at most ", kMaxTraceIterations));
        }
        break;
      case Column::kGpus: {
        int64_t gpus = 0;
        if (!ParseInt(v, gpus) || gpus <= 0) return LineError(source, line_no, "gpus", v, "is not a positive integer");
        if (gpus > cluster.total().gpus) {
          return LineError(source, line_no, "gpus", v, absl::StrCat("is more than the cluster's ", cluster.total().gpus, " GPUs"));
        }
        // A job runs on servers of one GPU type.
        if (cluster.heterogeneous() && gpus > LargestGpuType(cluster)) {
          return LineError(source, line_no, "gpus", v,
                           absl::StrCat("is more than any one GPU type's ", LargestGpuType(cluster), " GPUs"));
        }
        job.gpus = static_cast<int>(gpus);
        break;
      }
      default:
        if (absl::Status st = ParseRecorded(columns[i], v, job, source, line_no); !st.ok()) return st;
    }
  }
  return job;
}

}  // namespace

absl::StatusOr<std::vector<JobSpec>> ParseTrace(absl::string_view text,
                                                const std::string& source,
                                                const ModelZoo& zoo, const Cluster& cluster) {
  std::vector<JobSpec> jobs;
  std::unordered_map<JobId, int64_t> line_of_id;
  // Without a header, the positional columns; a header names them.
  std::vector<Column> columns;
  for (size_t i = 0; i < kPositional; ++i) columns.push_back(kColumns[i].column);
  bool header = false;
  int64_t line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty()) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(',', std::size(kColumns)));
    for (auto& f : fields) f = absl::StripAsciiWhitespace(f);
    if (jobs.empty() && !header && fields[0] == "job_id") {
      absl::StatusOr<std::vector<Column>> named = HeaderColumns(fields, source, line_no);
      if (!named.ok()) return named.status();
      columns = *std::move(named);
      header = true;
      continue;
    }
    const size_t fewest = header ? columns.size() : 5;
    if (fields.size() < fewest) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ":", line_no, ": ", NameOf(columns[fields.size()]), ": missing: expected ", fewest, " fields (",
          header ? "as the header says" : kFieldList, "), found ", fields.size(), " in ", QuoteValue(line)));
    }
    if (fields.size() > columns.size()) {
      return LineError(source, line_no, "line", line,
                       header ? absl::StrCat("expected ", columns.size(), " fields (as the header says), found more")
                              : absl::StrCat("expected 5 or 6 fields (", kFieldList, "), found more"));
    }
    absl::StatusOr<JobSpec> job = ParseJob(fields, columns, source, line_no, zoo, cluster);
    if (!job.ok()) return job.status();
    if (auto [it, fresh] = line_of_id.emplace(job->id, line_no); !fresh) {
      return LineError(source, line_no, "job_id", fields[0],
                       absl::StrCat("appears twice (first on line ", it->second, ")"));
    }
    jobs.push_back(*std::move(job));
  }
  if (jobs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": trace: no jobs"));
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.arrival_s < b.arrival_s;
  });
  return jobs;
}

absl::StatusOr<std::vector<JobSpec>> LoadTrace(const std::string& path, const ModelZoo& zoo,
                                               const Cluster& cluster) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open trace file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseTrace(buffer.str(), path, zoo, cluster);
}

std::string FormatTraceLine(const JobSpec& job, const ModelZoo& zoo) {
  return absl::StrCat(job.id, ",", zoo.model(job.model).name, ",", FormatNumber(job.arrival_s),
                      ",", FormatNumber(job.iterations), ",", job.gpus, job.checkpoints ? "" : ",0", "\n");
}

std::string TraceHeaderLine() {
  std::vector<std::string> names;
  for (const TraceColumnInfo& c : kColumns) names.push_back(c.name);
  return absl::StrCat(absl::StrJoin(names, ","), "\n");
}

std::string FormatTraceRow(const JobSpec& j, const ModelZoo& zoo) {
  return absl::StrCat(j.id, ",", zoo.model(j.model).name, ",", FormatNumber(j.arrival_s), ",",
                      FormatNumber(j.iterations), ",", j.gpus, ",", j.checkpoints ? 1 : 0, ",",
                      FormatNumber(j.requested_cpus), ",", FormatNumber(j.requested_mem_gb), ",",
                      FormatNumber(j.gpu_fraction), ",", j.gpu_type, ",", FormatNumber(j.duration_s), ",", j.user,
                      ",", FormatNumber(j.time_limit_s), ",", j.tenant, "\n");
}

std::string FormatTrace(const std::vector<JobSpec>& jobs, const ModelZoo& zoo) {
  const bool recorded = std::any_of(jobs.begin(), jobs.end(), [](const JobSpec& j) { return j.has_recorded_fields(); });
  std::string out;
  if (!recorded) {
    for (const JobSpec& job : jobs) out += FormatTraceLine(job, zoo);
    return out;
  }
  out = TraceHeaderLine();
  for (const JobSpec& j : jobs) out += FormatTraceRow(j, zoo);
  return out;
}

}  // namespace synergy::sim
