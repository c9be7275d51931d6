#include "sim/figures.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/experiment.h"
#include "sim/plots.h"

namespace synergy::sim {

absl::StatusOr<bool> DrawWithGnuplot(const std::filesystem::path& dir, const std::string& script) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) return false;
  const std::string cmd = absl::StrCat("cd '", dir.string(), "' && gnuplot ", script);
  if (std::system(cmd.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("gnuplot failed on ", (dir / script).string()));
  }
  return true;
}

absl::StatusOr<FigureOptions> ParseFigureOptions(const std::vector<std::string>& args) {
  FigureOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& out) -> absl::Status {
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(a, " needs a value"));
      out = args[++i];
      return absl::OkStatus();
    };
    absl::Status st;
    if (a == "--models") {
      st = value(o.models_path);
    } else if (a == "--cluster") {
      st = value(o.cluster_path);
    } else if (a == "--out") {
      st = value(o.out_dir);
    } else if (!a.empty() && a[0] == '-') {
      st = absl::InvalidArgumentError(absl::StrCat("unknown flag '", a, "'"));
    } else if (o.name.empty()) {
      o.name = a;
    } else {
      st = absl::InvalidArgumentError(absl::StrCat("one figure at a time: '", o.name, "' and '", a, "'"));
    }
    if (!st.ok()) return st;
  }
  if (o.name != "sensitivity") {
    return absl::InvalidArgumentError(absl::StrCat("figure: '", o.name,
                                                   "' is not a figure (sensitivity; the rest: synergy-sim sweep)"));
  }
  if (o.out_dir.empty()) return absl::InvalidArgumentError("figure needs --out DIR");
  return o;
}

std::string FigureUsage() {
  return "usage: synergy-sim figure sensitivity [--models FILE] [--cluster FILE] --out DIR\n"
         "sensitivity: every model's throughput against CPUs per GPU, a line per memory size (the\n"
         "paper's Fig. 2), the cluster's GPU-proportional CPUs marked. Writes the data as CSV and\n"
         "sensitivity.gp, and with gnuplot sensitivity.svg and sensitivity.png. The experiment\n"
         "figures (JCT CDFs, JCT against load with error bars over seeds, utilisation) are\n"
         "synergy-sim sweep's.\n";
}

absl::Status RunFigure(const FigureOptions& o, std::ostream& out) {
  CommonOptions common;
  common.models_path = o.models_path;
  common.cluster_path = o.cluster_path;
  common.policy = "fifo";
  auto inputs = LoadInputs(common, WorkloadOptions{});
  if (!inputs.ok()) return inputs.status();
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(o.out_dir, ": cannot create"));
  const fs::path dir(o.out_dir);
  const ModelZoo& zoo = inputs->zoo;
  std::vector<std::string> names;
  std::vector<double> memory_points;
  for (const ModelSpec& model : zoo.models()) {
    const SensitivityProfile& profile = model.profile;
    memory_points = profile.mem_points_gb();
    std::string csv = "cpus_per_gpu";
    for (double mem : memory_points) absl::StrAppendFormat(&csv, ",mem_%g_gb", mem);
    csv += "\n";
    for (double cpus : profile.cpu_points()) {
      absl::StrAppendFormat(&csv, "%g", cpus);
      for (double mem : memory_points) absl::StrAppendFormat(&csv, ",%.6f", profile.ThroughputAt(cpus, mem));
      csv += "\n";
    }
    std::ofstream(dir / absl::StrCat("sensitivity-", model.name, ".csv"), std::ios::trunc) << csv;
    names.push_back(model.name);
  }
  const Resources& total = inputs->cluster.total();
  const double proportional = total.gpus > 0 ? total.cpus / total.gpus : 0;
  std::ofstream(dir / "sensitivity.gp", std::ios::trunc) << SensitivityGnuplot(names, memory_points, proportional);
  auto drawn = DrawWithGnuplot(dir, "sensitivity.gp");
  if (!drawn.ok()) return drawn.status();
  out << "sensitivity of " << names.size() << " models: " << (dir / "sensitivity-MODEL.csv").string() << ", "
      << (*drawn ? (dir / "sensitivity.svg").string() + " and .png"
                 : "gnuplot not found: run `gnuplot sensitivity.gp` in " + dir.string())
      << "\n";
  return absl::OkStatus();
}

}  // namespace synergy::sim
