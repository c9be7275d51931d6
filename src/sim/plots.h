#pragma once
// The gnuplot scripts behind synergy-sim's figures, and the names of the
// files they read: pure text, no I/O (sweep.cc and figures.cc write the data
// and run gnuplot). Every figure is drawn twice, as NAME.svg and NAME.png,
// and each mechanism has one colour in every figure, whichever others are
// drawn beside it.
#include <cstdint>
#include <string>
#include <vector>

namespace synergy::sim {

// "#1f77b4" for tune, and so on; mechanisms not named get a fixed grey.
std::string MechanismColour(const std::string& mechanism);

// A run's directory in a sweep: MECH-loadL, or MECH-loadL-seedS when the
// sweep runs several seeds.
std::string RunDirName(const std::string& mechanism, double load, uint64_t seed, bool several_seeds);
// load-MECH.csv: load,mean_jct_h,mean_jct_h_sd,p99_jct_h,p99_jct_h_sd,gpu_util,cpu_util,mem_util
std::string LoadTableName(const std::string& mechanism);
// cdf-MECH-loadL-{all,single,multi}.csv: jct_h,fraction
std::string CdfName(const std::string& mechanism, double load, const std::string& jobs);

struct SweepLoadPlot {
  double load = 0;
  bool single_gpu_jobs = false;  // 1-GPU jobs finished (a panel of the CDF)
  bool multi_gpu_jobs = false;
  double window_from_h = 0;      // the measured jobs' first arrival and last finish
  double window_to_h = 0;
};

struct SweepPlotSpec {
  std::string policy;
  std::vector<std::string> mechanisms;
  std::vector<SweepLoadPlot> loads;  // ascending
  std::vector<uint64_t> seeds;       // the utilisation plot draws the first one's runs
};

// mean_jct_vs_load (mean and p99 JCT per mechanism, error bars: the
// standard deviation over seeds), jct_cdf-loadL (all, 1-GPU and multi-GPU
// jobs), utilisation-loadL (GPU, CPU and memory, the measurement window
// shaded).
std::string SweepGnuplot(const SweepPlotSpec& spec);
// The plots SweepGnuplot draws, without extension.
std::vector<std::string> SweepPlotNames(const SweepPlotSpec& spec);

// sensitivity: a panel per model, throughput against CPUs per GPU with a
// line per memory point, from sensitivity-MODEL.csv (cpus, then a column
// per memory point); the GPU-proportional CPUs marked.
std::string SensitivityGnuplot(const std::vector<std::string>& models, const std::vector<double>& memory_points_gb,
                               double proportional_cpus);

}  // namespace synergy::sim
