// synergy-sim: the trace-driven simulator's command line.
//   synergy-sim run ...    one simulation (see RunUsage())
//   synergy-sim sweep ...  loads x mechanisms, with plots
//   synergy-sim import ... a public GPU-cluster trace as one to replay
// Exit status: 0 done, 2 bad usage or input (nothing written), 1 a failure
// while writing results.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/experiment.h"
#include "sim/options.h"
#include "sim/progress.h"
#include "sim/figures.h"
#include "sim/sweep.h"
#include "sim/trace.h"
#include "synergy/config_loader.h"
#include "synergy/default_configs.h"
#include "synergy/version.h"

namespace {

using namespace synergy::sim;

constexpr int kBadInput = 2;

int Fail(const std::string& command, const absl::Status& status, int code) {
  std::fprintf(stderr, "synergy-sim %s: error: %s\n", command.c_str(),
               std::string(status.message()).c_str());
  if (code == kBadInput) {
    std::fprintf(stderr, "(synergy-sim %s --help shows the usage)\n", command.c_str());
  }
  return code;
}

bool WantsHelp(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

absl::Status WriteRecord(const std::string& path, const std::vector<JobSpec>& jobs,
                         const synergy::ModelZoo& zoo) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const JobSpec& j : jobs) out << FormatTraceLine(j, zoo);
    if (!out) return absl::PermissionDeniedError(absl::StrCat(path, ": cannot write"));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat(path, ": ", ec.message()));
  return absl::OkStatus();
}

// What summary.json records of a run's settings.
std::map<std::string, Setting> RunSettings(const RunOptions& options, const Inputs& inputs) {
  std::map<std::string, Setting> settings = CommonSettings(options.common, inputs);
  settings["mechanism"] = options.mechanism;
  if (options.workload.trace_path.empty()) {
    const WorkloadOptions& w = options.workload;
    settings["load_jobs_per_hour"] = w.load_jobs_per_hour;
    settings["seed"] = static_cast<double>(w.seed);
    settings["split"] = absl::StrCat(w.split_percent[0], ",", w.split_percent[1], ",", w.split_percent[2]);
    settings["measure"] = absl::StrCat(w.measure_from, ",", w.measure_to);
  } else {
    settings["trace"] = options.workload.trace_path;
  }
  return settings;
}

int Run(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(RunUsage().c_str(), stdout);
    return 0;
  }
  auto options = ParseRunOptions(args);
  if (!options.ok()) return Fail("run", options.status(), kBadInput);
  auto inputs = LoadInputs(options->common, options->workload);
  if (!inputs.ok()) return Fail("run", inputs.status(), kBadInput);

  const std::string label = absl::StrCat(options->common.policy, "/", options->mechanism);
  absl::StatusOr<Experiment> run;
  std::ofstream decisions;
  std::function<void(double, const synergy::Assignment&)> book;
  if (!options->decisions_path.empty()) {
    decisions.open(options->decisions_path, std::ios::trunc);
    if (!decisions) return Fail("run", absl::InvalidArgumentError(absl::StrCat("--decisions: ", options->decisions_path, ": cannot write")), kBadInput);
    decisions << "time_s,job_id,server,gpus,cpus,mem_gb,speedup\n";
    book = [&](double t, const synergy::Assignment& a) {
      for (const synergy::Slice& s : a.slices) {
        decisions << t << "," << a.job << "," << s.server << "," << s.resources.gpus << "," << s.resources.cpus
                  << "," << s.resources.mem_gb << "," << a.speedup << "\n";
      }
    };
  }
  {
    ProgressLine line(label, ProgressWanted(options->common.progress));
    run = RunExperiment(*inputs, options->common, options->workload, options->mechanism,
                        !options->record_path.empty(),
                        [&](const SimProgress& p) { line.Update(p); }, book);
  }
  if (!run.ok()) return Fail("run", run.status(), kBadInput);

  const std::map<std::string, Setting> settings = RunSettings(*options, *inputs);
  if (!options->record_path.empty()) {
    if (auto st = WriteRecord(options->record_path, run->generated, inputs->zoo); !st.ok()) {
      return Fail("run", st, 1);
    }
  }
  if (auto st = WriteReport(options->common.out_dir, run->result, run->summary, inputs->zoo,
                            inputs->cluster, settings);
      !st.ok()) {
    return Fail("run", st, 1);
  }
  if (run->summary.unplaced_after_revert > 0) {
    std::fprintf(stderr,
                 "synergy-sim run: warning: %lld times TUNE reverted peers and still could not "
                 "place a job (the reference simulator exits there)\n",
                 static_cast<long long>(run->summary.unplaced_after_revert));
  }
  std::printf("%s\n", OneLineSummary(run->summary, label).c_str());
  return 0;
}

int Sweep(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(SweepUsage().c_str(), stdout);
    return 0;
  }
  auto options = ParseSweepOptions(args);
  if (!options.ok()) return Fail("sweep", options.status(), kBadInput);
  if (auto st = RunSweep(*options, std::cout); !st.ok()) {
    return Fail("sweep", st, absl::IsInvalidArgument(st) || absl::IsNotFound(st) ? kBadInput : 1);
  }
  return 0;
}

int Figure(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(FigureUsage().c_str(), stdout);
    return 0;
  }
  auto options = ParseFigureOptions(args);
  if (!options.ok()) return Fail("figure", options.status(), kBadInput);
  if (auto st = RunFigure(*options, std::cout); !st.ok()) {
    return Fail("figure", st, absl::IsInvalidArgument(st) || absl::IsNotFound(st) ? kBadInput : 1);
  }
  return 0;
}

}  // namespace

int Import(const std::vector<std::string>& args) {
  if (WantsHelp(args)) {
    std::fputs(ImportUsage().c_str(), stdout);
    return 0;
  }
  auto options = ParseImportOptions(args);
  if (!options.ok()) return Fail("import", options.status(), kBadInput);
  auto zoo = options->models_path.empty() ? synergy::DefaultModelZoo()
                                          : synergy::LoadModelZooFile(options->models_path);
  if (!zoo.ok()) return Fail("import", zoo.status(), kBadInput);
  auto account = ImportTrace(*options, *zoo);
  if (!account.ok()) {
    const bool output = account.status().code() == absl::StatusCode::kPermissionDenied;
    return Fail("import", account.status(), output ? 1 : kBadInput);
  }
  int64_t dropped = 0;
  for (const auto& [reason, n] : account->jobs.dropped) dropped += n;
  std::printf("synergy-sim import %s: %lld jobs kept, %lld rows dropped (%s); wrote %s/trace.csv%s and import.json\n",
              options->format.c_str(), static_cast<long long>(account->jobs.kept), static_cast<long long>(dropped),
              account->jobs.path.c_str(), options->out_dir.c_str(),
              options->nodes_path.empty() ? "" : ", cluster.yaml");
  return 0;
}

int main(int argc, char** argv) {
  const std::string usage =
      "usage: synergy-sim run ...    one simulation (synergy-sim run --help)\n"
      "       synergy-sim sweep ...  loads x mechanisms (x seeds), with plots (synergy-sim sweep --help)\n"
      "       synergy-sim figure sensitivity --out DIR   the zoo's sensitivity curves (Fig. 2)\n"
      "       synergy-sim import FORMAT --in FILE --out DIR ...  a public trace to replay (synergy-sim import --help)\n"
      "       synergy-sim --version\n";
  if (argc < 2) {
    std::fputs(usage.c_str(), stderr);
    return kBadInput;
  }
  const std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "run") return Run(args);
  if (command == "sweep") return Sweep(args);
  if (command == "figure") return Figure(args);
  if (command == "import") return Import(args);
  if (command == "--help" || command == "-h" || command == "help") {
    std::fputs(usage.c_str(), stdout);
    return 0;
  }
  if (command == "--version") {
    std::printf("%s\n", synergy::VersionLine("synergy-sim").c_str());
    return 0;
  }
  std::fprintf(stderr, "synergy-sim: error: unknown command '%s'\n%s", command.c_str(),
               usage.c_str());
  return kBadInput;
}
