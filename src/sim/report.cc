#include "sim/report.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "synergy/json_text.h"

namespace synergy::sim {
namespace {

std::string Number(double v) {
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return absl::StrFormat("%.1f", v);
  return absl::StrFormat("%.6f", v);
}

absl::Status WriteAtomically(const std::filesystem::path& path, const std::string& content) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return absl::PermissionDeniedError(absl::StrCat(tmp.string(), ": cannot write"));
    out << content;
    out.flush();
    if (!out) return absl::DataLossError(absl::StrCat(tmp.string(), ": write failed"));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat(path.string(), ": cannot rename into place: ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double rank = p / 100.0 * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = static_cast<size_t>(std::ceil(rank));
  return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

namespace {

// On a cluster of several GPU types: each type's GPUs, utilisation over
// `span` seconds, and its finished jobs' mean JCT.
std::vector<Summary::ByGpuType> ByGpuType(const SimResult& result, const Cluster& cluster, double round_s,
                                          double span) {
  std::vector<Summary::ByGpuType> out;
  const std::vector<int> gpus_of_type = GpusOfEachType(cluster);
  for (int t = 0; t < static_cast<int>(cluster.gpu_types().size()); ++t) {
    Summary::ByGpuType& type = out.emplace_back();
    type.gpu_type = cluster.gpu_types()[t];
    type.gpus = gpus_of_type[t];
    double gpu_s = 0;
    for (const RoundSample& r : result.rounds) {
      if (t < static_cast<int>(r.gpus_by_type.size())) gpu_s += r.gpus_by_type[t] * round_s;
      // Launches between rounds, less what finished jobs gave back.
      if (t < static_cast<int>(r.launched_less_released_gpu_s_by_type.size())) {
        gpu_s += r.launched_less_released_gpu_s_by_type[t];
      }
    }
    if (span > 0 && type.gpus > 0) type.mean_gpu_util = gpu_s / (type.gpus * span);
    double sum = 0;
    for (const JobRecord& job : result.jobs) {
      if (job.finish_s < 0 || job.gpu_type != t) continue;
      ++type.jobs;
      sum += job.jct_s() / 3600.0;
    }
    if (type.jobs > 0) type.mean_jct_h = sum / static_cast<double>(type.jobs);
  }
  return out;
}

}  // namespace

namespace {
// The allocated and busy shares of the cluster over `span` seconds.
void AddUtilisation(const SimResult& result, const Cluster& cluster, double round_s, double span, Summary& s) {
  const Resources& total = cluster.total();
  double gpu = 0, cpu = 0, mem = 0;
  // Launches between rounds add what they held; jobs that finished
  // mid-round give back the rest of it (both zero without them).
  for (const RoundSample& r : result.rounds) {
    gpu += r.allocated.gpus * round_s + r.launched_s.gpus - r.released_s.gpus;
    cpu += r.allocated.cpus * round_s + r.launched_s.cpus - r.released_s.cpus;
    mem += r.allocated.mem_gb * round_s + r.launched_s.mem_gb - r.released_s.mem_gb;
  }
  s.mean_gpu_util = gpu / (total.gpus * span);
  s.busy_gpu_util = result.busy_gpu_s / (total.gpus * span);
  s.idle_gpu_h_while_waiting = result.idle_gpu_s_while_waiting / 3600.0;
  s.idle_share_while_waiting = result.idle_gpu_s_while_waiting / (total.gpus * span);
  s.mean_cpu_util = cpu / (total.cpus * span);
  s.mean_mem_util = mem / (total.mem_gb * span);
}
// Per tenant, by name (none when no job names one).
std::vector<Summary::ByTenant> ByTenant(const SimResult& result) {
  std::map<std::string, std::vector<const JobRecord*>> of;
  for (const JobRecord& job : result.jobs) {
    if (job.finish_s >= 0 && !job.spec.tenant.empty()) of[job.spec.tenant].push_back(&job);
  }
  std::vector<Summary::ByTenant> out;
  for (const auto& [name, jobs] : of) {
    Summary::ByTenant& t = out.emplace_back();
    t.tenant = name;
    t.jobs = static_cast<int64_t>(jobs.size());
    std::vector<double> jct_h;
    double jct_sum = 0, wait_sum = 0;
    for (const JobRecord* job : jobs) {
      jct_h.push_back(job->jct_s() / 3600.0);
      jct_sum += jct_h.back();
      wait_sum += std::max(0.0, job->start_s - job->spec.arrival_s) / 3600.0;
    }
    t.mean_jct_h = jct_sum / static_cast<double>(jobs.size());
    t.p99_jct_h = Percentile(jct_h, 99);
    t.mean_wait_h = wait_sum / static_cast<double>(jobs.size());
  }
  return out;
}

}  // namespace

Summary Summarize(const SimResult& result, const Cluster& cluster, double round_s) {
  Summary s;
  std::vector<double> jct_h;
  double first_arrival = -1;
  double last_finish = -1;
  for (const JobRecord& job : result.jobs) {
    if (job.finish_s < 0) continue;
    s.timed_out += job.timed_out ? 1 : 0;
    jct_h.push_back(job.jct_s() / 3600.0);
    if (first_arrival < 0 || job.spec.arrival_s < first_arrival) first_arrival = job.spec.arrival_s;
    last_finish = std::max(last_finish, job.finish_s);
  }
  s.jobs = static_cast<int64_t>(jct_h.size());
  s.unfinished = result.unfinished;
  if (!jct_h.empty()) {
    double sum = 0;
    for (double v : jct_h) sum += v;
    s.mean_jct_h = sum / static_cast<double>(jct_h.size());
    s.p50_jct_h = Percentile(jct_h, 50);
    s.p99_jct_h = Percentile(jct_h, 99);
    s.makespan_h = (last_finish - first_arrival) / 3600.0;
  }
  const double span = result.end_s - result.first_schedule_s;
  if (span > 0) AddUtilisation(result, cluster, round_s, span, s);
  s.rounds = static_cast<int64_t>(result.rounds.size());
  s.unplaced_after_revert = result.unplaced_after_revert;
  if (!result.rounds.empty()) {
    double t = 0;
    for (const RoundSample& r : result.rounds) t += r.throughput;
    s.mean_throughput = t / static_cast<double>(result.rounds.size());
  }
  s.restarts = result.restarts;
  s.resizes = result.resizes;
  s.launches_between_rounds = result.launches_between_rounds;
  if (cluster.heterogeneous()) s.by_gpu_type = ByGpuType(result, cluster, round_s, span);
  s.by_tenant = ByTenant(result);
  s.solver_rounds = result.solver_rounds;
  s.solver_fallbacks = result.solver_fallbacks;
  s.solver_budget_rounds = result.solver_budget_rounds;
  s.solver_stepped_down_rounds = result.solver_stepped_down_rounds;
  if (result.solver_rounds > 0) {
    s.mean_lp_bound = result.solver_lp_bound_sum / static_cast<double>(result.solver_rounds);
    s.mean_realised = result.solver_realised_sum / static_cast<double>(result.solver_rounds);
  }
  return s;
}

namespace {

// jobs.csv: a row per finished job. restarts and resizes last (the
// columns before them are the reference's); gpu_type after them, on a
// cluster of several types only.
std::string JobsCsv(const SimResult& result, const ModelZoo& zoo, const Cluster& cluster) {
  const bool typed = cluster.heterogeneous();
  std::string jobs = absl::StrCat("job_id,model,gpus,arrival_s,start_s,finish_s,jct_s,restarts,resizes",
                                  typed ? ",gpu_type" : "", "\n");
  for (const JobRecord& job : result.jobs) {
    if (job.finish_s < 0) continue;
    absl::StrAppend(&jobs, job.spec.id, ",", zoo.model(job.spec.model).name, ",", job.spec.gpus,
                    ",", Number(job.spec.arrival_s), ",", Number(job.start_s), ",",
                    Number(job.finish_s), ",", Number(job.jct_s()), ",", job.restarts, ",", job.resizes);
    if (typed) absl::StrAppend(&jobs, ",", job.gpu_type >= 0 ? cluster.gpu_types()[job.gpu_type] : "");
    absl::StrAppend(&jobs, "\n");
  }
  return jobs;
}

// utilisation.csv: a row per round; lp_bound, stepped_down and fell_back
// are OPT's, empty for the others.
std::string UtilisationCsv(const SimResult& result, const Cluster& cluster) {
  const Resources& total = cluster.total();
  std::string util =
      "time_s,gpu_util,cpu_util,mem_util,running,queued,throughput,lp_bound,stepped_down,fell_back\n";
  for (const RoundSample& r : result.rounds) {
    // Over the round: launches between rounds add, finishes give back.
    const double round_s = result.round_s > 0 ? result.round_s : 1;
    absl::StrAppendFormat(
        &util, "%.1f,%.6f,%.6f,%.6f,%d,%d,%.6f", r.time_s,
        r.allocated.gpus / double(total.gpus) + (r.launched_s.gpus - r.released_s.gpus) / (total.gpus * round_s),
        r.allocated.cpus / total.cpus + (r.launched_s.cpus - r.released_s.cpus) / (total.cpus * round_s),
        r.allocated.mem_gb / total.mem_gb + (r.launched_s.mem_gb - r.released_s.mem_gb) / (total.mem_gb * round_s),
        r.running, r.queued, r.throughput);
    if (r.solver.solved) {
      absl::StrAppendFormat(&util, ",%.6f,%d,%d\n", r.solver.lp_bound, r.solver.stepped_down,
                            r.solver.fell_back ? 1 : 0);
    } else {
      absl::StrAppend(&util, ",,,\n");
    }
  }
  return util;
}

// summary.json: the run's settings, then its figures.
// by_gpu_type and by_tenant, where the run has them.
void AppendBreakdowns(const Summary& summary, std::string& json) {
  if (!summary.by_gpu_type.empty()) {
    absl::StrAppend(&json, ",\n  \"by_gpu_type\": [");
    for (size_t t = 0; t < summary.by_gpu_type.size(); ++t) {
      const Summary::ByGpuType& type = summary.by_gpu_type[t];
      absl::StrAppendFormat(&json,
                            "%s\n    {\"gpu_type\": %s, \"gpus\": %d, \"mean_gpu_util\": %.6f, \"jobs\": %d, "
                            "\"mean_jct_h\": %.6f}",
                            t > 0 ? "," : "", JsonQuote(type.gpu_type), type.gpus, type.mean_gpu_util, type.jobs,
                            type.mean_jct_h);
    }
    absl::StrAppend(&json, "\n  ]");
  }
  if (!summary.by_tenant.empty()) {
    absl::StrAppend(&json, ",\n  \"by_tenant\": [");
    for (size_t t = 0; t < summary.by_tenant.size(); ++t) {
      const Summary::ByTenant& tenant = summary.by_tenant[t];
      absl::StrAppendFormat(&json,
                            "%s\n    {\"tenant\": %s, \"jobs\": %d, \"mean_jct_h\": %.6f, \"p99_jct_h\": %.6f, "
                            "\"mean_wait_h\": %.6f}",
                            t > 0 ? "," : "", JsonQuote(tenant.tenant), tenant.jobs, tenant.mean_jct_h,
                            tenant.p99_jct_h, tenant.mean_wait_h);
    }
    absl::StrAppend(&json, "\n  ]");
  }
}

std::string SummaryJson(const Summary& summary, const std::map<std::string, Setting>& settings) {
  std::string json = "{\n";
  for (const auto& [key, value] : settings) {
    std::string literal;
    if (const auto* text = std::get_if<std::string>(&value)) {
      literal = JsonQuote(*text);
    } else if (const auto* number = std::get_if<double>(&value)) {
      literal = absl::StrFormat("%.17g", *number);
    } else {
      literal = std::get<bool>(value) ? "true" : "false";
    }
    absl::StrAppend(&json, "  ", JsonQuote(key), ": ", literal, ",\n");
  }
  absl::StrAppendFormat(&json,
                        "  \"jobs\": %d,\n  \"timed_out\": %d,\n  \"unfinished\": %d,\n  \"mean_jct_h\": %.6f,\n"
                        "  \"p50_jct_h\": %.6f,\n  \"p99_jct_h\": %.6f,\n"
                        "  \"makespan_h\": %.6f,\n  \"mean_gpu_util\": %.6f,\n"
                        "  \"mean_cpu_util\": %.6f,\n  \"mean_mem_util\": %.6f,\n"
                        "  \"rounds\": %d,\n  \"unplaced_after_revert\": %d,\n"
                        "  \"mean_throughput\": %.6f,\n  \"solver_rounds\": %d,\n"
                        "  \"solver_fallbacks\": %d,\n  \"solver_budget_rounds\": %d,\n"
                        "  \"solver_stepped_down_rounds\": %d,\n"
                        "  \"mean_lp_bound\": %.6f,\n  \"mean_realised\": %.6f,\n"
                        "  \"restarts\": %d,\n  \"resizes\": %d,\n"
                        "  \"busy_gpu_util\": %.6f,\n  \"idle_gpu_h_while_waiting\": %.6f,\n"
                        "  \"idle_share_while_waiting\": %.6f,\n  \"launches_between_rounds\": %d",
                        summary.jobs, summary.timed_out, summary.unfinished, summary.mean_jct_h,
                        summary.p50_jct_h, summary.p99_jct_h, summary.makespan_h,
                        summary.mean_gpu_util, summary.mean_cpu_util, summary.mean_mem_util,
                        summary.rounds, summary.unplaced_after_revert, summary.mean_throughput,
                        summary.solver_rounds, summary.solver_fallbacks,
                        summary.solver_budget_rounds, summary.solver_stepped_down_rounds,
                        summary.mean_lp_bound,
                        summary.mean_realised, summary.restarts, summary.resizes, summary.busy_gpu_util,
                        summary.idle_gpu_h_while_waiting, summary.idle_share_while_waiting,
                        summary.launches_between_rounds);
  AppendBreakdowns(summary, json);
  absl::StrAppend(&json, "\n}\n");

  return json;
}

}  // namespace

absl::Status WriteReport(const std::string& dir, const SimResult& result,
                         const Summary& summary, const ModelZoo& zoo, const Cluster& cluster,
                         const std::map<std::string, Setting>& settings) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(dir, ": cannot create: ", ec.message()));
  // A summary from an earlier run must not stand beside this run's files.
  fs::remove(fs::path(dir) / "summary.json", ec);

  const std::string jobs = JobsCsv(result, zoo, cluster);
  const std::string util = UtilisationCsv(result, cluster);
  const std::string json = SummaryJson(summary, settings);
  const fs::path base(dir);
  if (auto st = WriteAtomically(base / "jobs.csv", jobs); !st.ok()) return st;
  if (auto st = WriteAtomically(base / "utilisation.csv", util); !st.ok()) return st;
  return WriteAtomically(base / "summary.json", json);
}

std::string OneLineSummary(const Summary& s, const std::string& label) {
  std::string line = absl::StrFormat(
      "%s: %d jobs, mean JCT %.2f h, p50 %.2f h, p99 %.2f h, makespan %.1f h, "
      "util gpu %.1f%% cpu %.1f%% mem %.1f%%",
      label, s.jobs, s.mean_jct_h, s.p50_jct_h, s.p99_jct_h, s.makespan_h,
      100 * s.mean_gpu_util, 100 * s.mean_cpu_util, 100 * s.mean_mem_util);
  if (s.busy_gpu_util > 0) {
    absl::StrAppendFormat(&line, ", busy gpu %.1f%%, idle while jobs wait %.1f GPU-h (%.2f%%)", 100 * s.busy_gpu_util,
                          s.idle_gpu_h_while_waiting, 100 * s.idle_share_while_waiting);
  }
  if (s.launches_between_rounds > 0) absl::StrAppend(&line, ", ", s.launches_between_rounds, " launched between rounds");
  if (s.restarts > 0 || s.resizes > 0) absl::StrAppend(&line, ", ", s.restarts, " restarts, ", s.resizes, " resizes");
  if (s.timed_out > 0) absl::StrAppend(&line, ", ", s.timed_out, " timed out");
  if (s.unfinished > 0) absl::StrAppend(&line, ", ", s.unfinished, " unfinished");
  return line;
}

}  // namespace synergy::sim
