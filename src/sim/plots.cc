#include "sim/plots.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace synergy::sim {
namespace {

// One figure, as SVG and as PNG. `body` starts from gnuplot's defaults.
std::string Both(const std::string& name, int width, int height, const std::string& body) {
  std::string out;
  absl::StrAppendFormat(&out, "set terminal svg size %d,%d dynamic background rgb 'white'\nset output '%s.svg'\n",
                        width, height, name);
  absl::StrAppend(&out, body);
  absl::StrAppendFormat(&out, "set terminal pngcairo size %d,%d\nset output '%s.png'\n", width, height, name);
  absl::StrAppend(&out, body, "unset output\n\n");
  return out;
}

std::string Prelude() { return "reset\nset datafile separator ','\nset grid\n"; }

std::string Load(double load) { return absl::StrFormat("%g", load); }

}  // namespace

std::string MechanismColour(const std::string& mechanism) {
  static const std::map<std::string, std::string> kColours = {
      {"proportional", "#7f7f7f"}, {"greedy", "#ff7f0e"}, {"tune", "#1f77b4"},
      {"tune-graded", "#2ca02c"},  {"opt", "#9467bd"},
  };
  auto it = kColours.find(mechanism);
  return it == kColours.end() ? "#8c564b" : it->second;
}

std::string RunDirName(const std::string& mechanism, double load, uint64_t seed, bool several_seeds) {
  return several_seeds ? absl::StrFormat("%s-load%g-seed%d", mechanism, load, seed)
                       : absl::StrFormat("%s-load%g", mechanism, load);
}

std::string LoadTableName(const std::string& mechanism) { return absl::StrCat("load-", mechanism, ".csv"); }

std::string CdfName(const std::string& mechanism, double load, const std::string& jobs) {
  return absl::StrFormat("cdf-%s-load%g-%s.csv", mechanism, load, jobs);
}

std::vector<std::string> SweepPlotNames(const SweepPlotSpec& spec) {
  std::vector<std::string> names = {"mean_jct_vs_load"};
  for (const SweepLoadPlot& l : spec.loads) {
    names.push_back("jct_cdf-load" + Load(l.load));
    names.push_back("utilisation-load" + Load(l.load));
  }
  return names;
}

namespace {

// JCT CDFs at one load: all jobs, then 1-GPU and multi-GPU jobs apart.
std::string CdfPlot(const SweepPlotSpec& spec, const SweepLoadPlot& l) {
  std::vector<std::pair<std::string, std::string>> panels = {{"all", "all jobs"}};
  if (l.single_gpu_jobs && l.multi_gpu_jobs) {
    panels.emplace_back("single", "1-GPU jobs");
    panels.emplace_back("multi", "multi-GPU jobs");
  }
  std::string body = Prelude();
  absl::StrAppendFormat(&body,
                        "set multiplot layout 1,%d title 'JCT CDF, %s, load %s jobs/hour (seed %d)'\n"
                        "set logscale x\nset yrange [0:1]\nset key bottom right\n"
                        "set xlabel 'JCT (hours)'\nset ylabel 'fraction of jobs'\n",
                        panels.size(), spec.policy, Load(l.load), spec.seeds.front());
  for (const auto& [jobs, title] : panels) {
    absl::StrAppend(&body, "set title '", title, "'\nplot ");
    for (size_t i = 0; i < spec.mechanisms.size(); ++i) {
      const std::string& m = spec.mechanisms[i];
      absl::StrAppendFormat(&body, "%s'%s' using 1:2 skip 1 with lines lw 2 lc rgb '%s' title '%s'", i ? ", " : "",
                            CdfName(m, l.load, jobs), MechanismColour(m), m);
    }
    body += "\n";
  }
  body += "unset multiplot\n";
  return Both("jct_cdf-load" + Load(l.load), 400 * static_cast<int>(panels.size()) + 100, 480, body);
}

// Allocated GPU, CPU and memory over time at one load, the window shaded.
std::string UtilisationPlot(const SweepPlotSpec& spec, const SweepLoadPlot& l) {
  std::string body = Prelude();
  absl::StrAppendFormat(&body,
                        "set multiplot layout 3,1 title 'Allocated share over time, %s, load %s jobs/hour "
                        "(shaded: from the first measured arrival to the last measured finish)'\n"
                        "set object 1 rect from %.4f, graph 0 to %.4f, graph 1 fc rgb '#ececec' "
                        "fillstyle solid 1.0 noborder behind\n"
                        "set yrange [0:1.05]\nset key bottom right\nset xlabel 'time (hours)'\n",
                        spec.policy, Load(l.load), l.window_from_h, l.window_to_h);
  for (const auto& [column, resource] :
       {std::pair<int, const char*>{2, "GPU"}, {3, "CPU"}, {4, "memory"}}) {
    absl::StrAppend(&body, "set title '", resource, "'\nset ylabel 'allocated fraction'\nplot ");
    for (size_t i = 0; i < spec.mechanisms.size(); ++i) {
      const std::string& m = spec.mechanisms[i];
      absl::StrAppendFormat(&body, "%s'%s/utilisation.csv' using ($1/3600):%d skip 1 with lines lc rgb '%s' title '%s'",
                            i ? ", " : "", RunDirName(m, l.load, spec.seeds.front(), spec.seeds.size() > 1), column,
                            MechanismColour(m), m);
    }
    body += "\n";
  }
  body += "unset multiplot\n";
  return Both("utilisation-load" + Load(l.load), 1000, 900, body);
}

}  // namespace

std::string SweepGnuplot(const SweepPlotSpec& spec) {
  std::string gp = "# Generated by synergy-sim sweep; run `gnuplot plots.gp` in this directory.\n";
  const std::string seeds =
      spec.seeds.size() > 1 ? absl::StrFormat("mean of %d seeds, bars: 1 standard deviation", spec.seeds.size())
                            : "one seed";
  // Mean and p99 JCT against load.
  std::string body = Prelude();
  absl::StrAppend(&body, "set multiplot layout 1,2 title 'JCT against load, ", spec.policy, " (", seeds, ")'\n",
                  "set offsets graph 0.05, graph 0.05, graph 0.1, 0\nset key top left\n",
                  "set xlabel 'load (jobs/hour)'\n");
  for (const auto& [column, label] : {std::pair<int, const char*>{2, "mean JCT (hours)"}, {4, "p99 JCT (hours)"}}) {
    absl::StrAppend(&body, "set ylabel '", label, "'\nplot ");
    for (size_t i = 0; i < spec.mechanisms.size(); ++i) {
      const std::string& m = spec.mechanisms[i];
      absl::StrAppendFormat(&body, "%s'%s' using 1:%d:%d skip 1 with yerrorlines lw 2 pt 7 lc rgb '%s' title '%s'",
                            i ? ", " : "", LoadTableName(m), column, column + 1, MechanismColour(m), m);
    }
    body += "\n";
  }
  body += "unset multiplot\n";
  gp += Both("mean_jct_vs_load", 1200, 520, body);

  for (const SweepLoadPlot& l : spec.loads) gp += CdfPlot(spec, l) + UtilisationPlot(spec, l);
  return gp;
}

std::string SensitivityGnuplot(const std::vector<std::string>& models, const std::vector<double>& memory_points_gb,
                               double proportional_cpus) {
  static const char* kMemoryColours[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
                                         "#8c564b", "#e377c2", "#17becf"};
  const int columns = models.size() > 6 ? 4 : 3;
  const int rows = static_cast<int>((models.size() + columns - 1) / columns);
  std::string body = Prelude();
  absl::StrAppendFormat(&body,
                        "set multiplot layout %d,%d title 'Throughput against CPUs per GPU at each memory size "
                        "(1 = the GPU-proportional share; dashed: its CPUs)'\n"
                        "set logscale x 2\nset yrange [0:*]\nset xlabel 'CPUs per GPU'\nset ylabel 'throughput'\nset key top left "
                        "font ',8'\nset arrow 1 from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '#555555'\n",
                        rows, columns, proportional_cpus, proportional_cpus);
  for (const std::string& model : models) {
    absl::StrAppend(&body, "set title '", model, "'\nplot ");
    for (size_t k = 0; k < memory_points_gb.size(); ++k) {
      absl::StrAppendFormat(&body, "%s'sensitivity-%s.csv' using 1:%d skip 1 with linespoints lw 2 pt 7 ps 0.6 "
                                   "lc rgb '%s' title '%g GB'",
                            k ? ", " : "", model, k + 2, kMemoryColours[k % 8], memory_points_gb[k]);
    }
    body += "\n";
  }
  body += "unset multiplot\n";
  return "# Generated by synergy-sim figure sensitivity; run `gnuplot sensitivity.gp` here.\n" +
         Both("sensitivity", 380 * columns, 300 * rows + 60, body);
}

}  // namespace synergy::sim
