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
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

constexpr const char* kFields[] = {"job_id", "model", "arrival_s", "iterations", "gpus", "checkpoints"};
constexpr const char* kFieldList = "job_id,model,arrival_s,iterations,gpus[,checkpoints]";

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

// One line's fields (already split and stripped) as a job, or the error.
absl::StatusOr<JobSpec> ParseJob(const std::vector<absl::string_view>& fields,
                                 const std::string& source, int64_t line_no, const ModelZoo& zoo,
                                 const Cluster& cluster) {
  JobSpec job;
  int64_t id = 0;
  if (!ParseInt(fields[0], id) || id < 0) {
    return LineError(source, line_no, "job_id", fields[0], "is not a non-negative integer");
  }
  job.id = id;
  job.model = zoo.Find(std::string(fields[1]));
  if (job.model < 0) {
    std::vector<std::string> names;
    for (const ModelSpec& m : zoo.models()) names.push_back(m.name);
    return LineError(source, line_no, "model", fields[1],
                     absl::StrCat("unknown model (the zoo has ", absl::StrJoin(names, ", "), ")"));
  }
  if (!ParseDouble(fields[2], job.arrival_s) || job.arrival_s < 0 ||
      job.arrival_s > kMaxTraceArrivalS) {
    return LineError(source, line_no, "arrival_s", fields[2],
                     absl::StrCat("is not a number between 0 and ", kMaxTraceArrivalS));
  }
  if (!ParseDouble(fields[3], job.iterations) || job.iterations <= 0 ||
      job.iterations > kMaxTraceIterations) {
    return LineError(source, line_no, "iterations", fields[3],
                     absl::StrCat("is not a number > 0 and at most ", kMaxTraceIterations));
  }
  int64_t gpus = 0;
  if (!ParseInt(fields[4], gpus) || gpus <= 0) {
    return LineError(source, line_no, "gpus", fields[4], "is not a positive integer");
  }
  if (gpus > cluster.total().gpus) {
    return LineError(source, line_no, "gpus", fields[4],
                     absl::StrCat("is more than the cluster's ", cluster.total().gpus, " GPUs"));
  }
  // A job runs on servers of one GPU type.
  if (cluster.heterogeneous() && gpus > LargestGpuType(cluster)) {
    return LineError(source, line_no, "gpus", fields[4],
                     absl::StrCat("is more than any one GPU type's ", LargestGpuType(cluster), " GPUs"));
  }
  job.gpus = static_cast<int>(gpus);
  if (fields.size() > 5) {
    if (fields[5] != "0" && fields[5] != "1") {
      return LineError(source, line_no, "checkpoints", fields[5], "is not 0 (a plain process) or 1 (it checkpoints)");
    }
    job.checkpoints = fields[5] == "1";
  }
  return job;
}

}  // namespace

absl::StatusOr<std::vector<JobSpec>> ParseTrace(absl::string_view text,
                                                const std::string& source,
                                                const ModelZoo& zoo, const Cluster& cluster) {
  std::vector<JobSpec> jobs;
  std::unordered_map<JobId, int64_t> line_of_id;
  int64_t line_no = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line_no;
    absl::string_view line = absl::StripAsciiWhitespace(raw);
    if (line.empty()) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(',', 6));
    if (fields.size() < 5) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ":", line_no, ": ", kFields[fields.size()], ": missing: expected 5 fields (",
          kFieldList, "), found ", fields.size(), " in ", QuoteValue(line)));
    }
    if (fields.size() > 6) {
      return LineError(source, line_no, "line", line,
                       absl::StrCat("expected 5 or 6 fields (", kFieldList, "), found more"));
    }
    for (auto& f : fields) f = absl::StripAsciiWhitespace(f);
    absl::StatusOr<JobSpec> job = ParseJob(fields, source, line_no, zoo, cluster);
    if (!job.ok()) return job.status();
    if (auto [it, fresh] = line_of_id.emplace(job->id, line_no); !fresh) {
      return LineError(source, line_no, "job_id", fields[0],
                       absl::StrCat("appears twice (first on line ", it->second, ")"));
    }
    jobs.push_back(*job);
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

}  // namespace synergy::sim
