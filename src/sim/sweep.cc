#include "sim/sweep.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/experiment.h"
#include "sim/figures.h"
#include "sim/plots.h"
#include "sim/progress.h"

namespace synergy::sim {
namespace {

absl::Status WriteText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) return absl::PermissionDeniedError(absl::StrCat(path.string(), ": cannot write"));
  return absl::OkStatus();
}

// Mean and sample standard deviation (0 for one value).
std::pair<double, double> MeanAndSd(const std::vector<double>& v) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return {mean, v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0};
}

std::string CdfCsv(std::vector<double> jct_h) {
  std::sort(jct_h.begin(), jct_h.end());
  std::string cdf = "jct_h,fraction\n";
  for (size_t i = 0; i < jct_h.size(); ++i) {
    absl::StrAppendFormat(&cdf, "%.6f,%.6f\n", jct_h[i], double(i + 1) / jct_h.size());
  }
  return cdf;
}

// A run's JCT CDFs (all jobs, 1-GPU and multi-GPU jobs), and its jobs'
// measurement window and sizes noted in `panel`.
absl::Status WriteCdfs(const std::filesystem::path& base, const std::string& mechanism, double load,
                       const SimResult& result, SweepLoadPlot& panel) {
  std::vector<double> all, single, multi;
  for (const JobRecord& j : result.jobs) {
    panel.window_from_h = panel.window_from_h < 0 ? j.spec.arrival_s / 3600
                                                  : std::min(panel.window_from_h, j.spec.arrival_s / 3600);
    if (j.finish_s < 0) continue;
    panel.window_to_h = std::max(panel.window_to_h, j.finish_s / 3600);
    all.push_back(j.jct_s() / 3600);
    (j.spec.gpus > 1 ? multi : single).push_back(j.jct_s() / 3600);
  }
  panel.single_gpu_jobs |= !single.empty();
  panel.multi_gpu_jobs |= !multi.empty();
  for (const auto& [name, jct] : {std::pair<const char*, std::vector<double>*>{"all", &all},
                                  {"single", &single}, {"multi", &multi}}) {
    if (auto st = WriteText(base / CdfName(mechanism, load, name), CdfCsv(*jct)); !st.ok()) return st;
  }
  return absl::OkStatus();
}

// load-MECH.csv: per load, the mean and standard deviation over seeds.
std::string LoadTable(const std::map<double, std::vector<Summary>>& by_load) {
  std::string csv = "load,mean_jct_h,mean_jct_h_sd,p99_jct_h,p99_jct_h_sd,gpu_util,cpu_util,mem_util\n";
  for (const auto& [load, summaries] : by_load) {
    std::vector<double> mean, p99, gpu, cpu, mem;
    for (const Summary& s : summaries) {
      mean.push_back(s.mean_jct_h);
      p99.push_back(s.p99_jct_h);
      gpu.push_back(s.mean_gpu_util);
      cpu.push_back(s.mean_cpu_util);
      mem.push_back(s.mean_mem_util);
    }
    const auto [m, m_sd] = MeanAndSd(mean);
    const auto [p, p_sd] = MeanAndSd(p99);
    absl::StrAppendFormat(&csv, "%g,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", load, m, m_sd, p, p_sd,
                          MeanAndSd(gpu).first, MeanAndSd(cpu).first, MeanAndSd(mem).first);
  }
  return csv;
}

// plots.gp drawn with gnuplot where it is installed; says where they are,
// or how to draw them.
absl::Status DrawPlots(const std::filesystem::path& base, const SweepPlotSpec& plots, std::ostream& out) {
  if (auto st = WriteText(base / "plots.gp", SweepGnuplot(plots)); !st.ok()) return st;
  auto drawn = DrawWithGnuplot(base, "plots.gp");
  if (!drawn.ok()) return drawn.status();
  if (*drawn) {
    const std::vector<std::string> names = SweepPlotNames(plots);
    out << "plots (SVG and PNG): " << (base / names.front()).string();
    for (size_t i = 1; i < names.size(); ++i) out << ", " << names[i];
    out << "\n";
  } else {
    out << "gnuplot not found: run `gnuplot plots.gp` in " << base.string() << " to draw the plots\n";
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunSweep(const SweepOptions& o, std::ostream& out) {
  namespace fs = std::filesystem;
  auto inputs = LoadInputs(o.common, o.workload);
  if (!inputs.ok()) return inputs.status();
  std::error_code ec;
  fs::create_directories(o.common.out_dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(o.common.out_dir, ": cannot create"));
  const fs::path base(o.common.out_dir);
  std::vector<double> loads = o.loads;
  std::sort(loads.begin(), loads.end());
  loads.erase(std::unique(loads.begin(), loads.end()), loads.end());
  const bool several_seeds = o.seeds.size() > 1;

  std::string table = "policy,mechanism,load,seed,jobs,mean_jct_h,p50_jct_h,p99_jct_h,makespan_h,"
                      "gpu_util,cpu_util,mem_util\n";
  out << absl::StrFormat("%-13s %6s %6s %6s %12s %12s %8s %8s\n", "mechanism", "load", "seed", "jobs", "mean JCT h",
                         "p99 JCT h", "GPU %", "CPU %");
  SweepPlotSpec plots{o.common.policy, o.mechanisms, {}, o.seeds};
  // mechanism -> load -> the summaries of its seeds
  std::map<std::string, std::map<double, std::vector<Summary>>> runs;
  for (double load : loads) {
    SweepLoadPlot panel{load, false, false, -1, 0};
    for (const std::string& mechanism : o.mechanisms) {
      for (uint64_t seed : o.seeds) {
        WorkloadOptions workload = o.workload;
        workload.load_jobs_per_hour = load;
        workload.seed = seed;
        ProgressLine line(absl::StrFormat("%s load %g seed %d", mechanism, load, seed),
                          ProgressWanted(o.common.progress));
        auto run = RunExperiment(*inputs, o.common, workload, mechanism, false,
                                 [&](const SimProgress& p) { line.Update(p); });
        line.Clear();
        if (!run.ok()) return run.status();
        const Summary& s = run->summary;
        std::map<std::string, Setting> settings = CommonSettings(o.common, *inputs);
        settings["mechanism"] = mechanism;
        settings["load_jobs_per_hour"] = load;
        settings["seed"] = static_cast<double>(seed);
        const std::string dir = (base / RunDirName(mechanism, load, seed, several_seeds)).string();
        if (auto st = WriteReport(dir, run->result, s, inputs->zoo, inputs->cluster, settings); !st.ok()) return st;
        runs[mechanism][load].push_back(s);
        absl::StrAppendFormat(&table, "%s,%s,%g,%d,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", o.common.policy,
                              mechanism, load, seed, s.jobs, s.mean_jct_h, s.p50_jct_h, s.p99_jct_h, s.makespan_h,
                              s.mean_gpu_util, s.mean_cpu_util, s.mean_mem_util);
        out << absl::StrFormat("%-13s %6g %6d %6d %12.2f %12.2f %8.1f %8.1f\n", mechanism, load, seed, s.jobs,
                               s.mean_jct_h, s.p99_jct_h, 100 * s.mean_gpu_util, 100 * s.mean_cpu_util);
        out.flush();
        if (seed != o.seeds.front()) continue;
        if (auto st = WriteCdfs(base, mechanism, load, run->result, panel); !st.ok()) return st;
      }
    }
    panel.window_from_h = std::max(0.0, panel.window_from_h);
    plots.loads.push_back(panel);
  }
  for (const std::string& mechanism : o.mechanisms) {
    if (auto st = WriteText(base / LoadTableName(mechanism), LoadTable(runs[mechanism])); !st.ok()) return st;
  }
  if (auto st = WriteText(base / "sweep.csv", table); !st.ok()) return st;
  return DrawPlots(base, plots, out);
}

}  // namespace synergy::sim
