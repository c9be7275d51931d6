#pragma once
// `synergy-sim sweep`: the paper-style experiment grid, loads x mechanisms
// under one policy, with the plots a researcher looks at first.
//   DIR/sweep.csv              one row per run (mechanism, load, seed)
//   DIR/MECH-loadL[-seedS]/    each run's report (jobs.csv, summary.json, ...)
//   DIR/load-MECH.csv          per load: mean and p99 JCT, mean and standard
//                              deviation over the seeds; utilisation
//   DIR/cdf-MECH-loadL-{all,single,multi}.csv   JCT CDFs (first seed)
//   DIR/plots.gp               the gnuplot script (sim/plots.h) for
//   DIR/mean_jct_vs_load, DIR/jct_cdf-loadL, DIR/utilisation-loadL (.svg
//                              and .png), drawn when gnuplot is on PATH
#include <ostream>

#include "absl/status/status.h"
#include "sim/options.h"

namespace synergy::sim {

// Prints a table of the runs to `out`. Bad input fails before any run.
absl::Status RunSweep(const SweepOptions& options, std::ostream& out);

}  // namespace synergy::sim
