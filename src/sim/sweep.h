#pragma once
// `synergy-sim sweep`: the paper-style experiment grid, loads x mechanisms
// under one policy, with the plots a researcher looks at first.
//   DIR/sweep.csv              one row per run
//   DIR/MECH-loadL/            each run's report (jobs.csv, summary.json, ...)
//   DIR/cdf-MECH.csv           JCT CDF at the highest load
//   DIR/plots.gp               gnuplot script for the three plots below
//   DIR/jct_cdf.svg, DIR/mean_jct_vs_load.svg, DIR/utilisation.svg
//                              drawn when gnuplot is on PATH
#include <ostream>

#include "absl/status/status.h"
#include "sim/options.h"

namespace synergy::sim {

// Prints a table of the runs to `out`. Bad input fails before any run.
absl::Status RunSweep(const SweepOptions& options, std::ostream& out);

}  // namespace synergy::sim
