#pragma once
// `synergy-sim figure NAME`: the paper's figures that need no experiment
// grid. Today: `sensitivity` (the paper's Fig. 2), every zoo model's
// throughput against CPUs per GPU at each memory size. The experiment
// figures (JCT CDFs, JCT against load, utilisation) come from `sweep`.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace synergy::sim {

// Runs `gnuplot SCRIPT` in `dir` when gnuplot is on PATH: true when drawn,
// false when there is no gnuplot (the data and the script are there).
absl::StatusOr<bool> DrawWithGnuplot(const std::filesystem::path& dir, const std::string& script);

struct FigureOptions {
  std::string name;          // sensitivity
  std::string models_path;   // empty: the embedded zoo
  std::string cluster_path;  // empty: the embedded cluster (its per-GPU share is marked)
  std::string out_dir;
};

absl::StatusOr<FigureOptions> ParseFigureOptions(const std::vector<std::string>& args);
std::string FigureUsage();

// Writes DIR/sensitivity-MODEL.csv per model, DIR/sensitivity.gp, and with
// gnuplot DIR/sensitivity.svg and .png; prints what it wrote.
absl::Status RunFigure(const FigureOptions& options, std::ostream& out);

}  // namespace synergy::sim
