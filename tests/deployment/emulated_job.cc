// A training job of the model zoo, emulated in dilated time, for the
// deployment-vs-simulator harness (scripts/deploy-vs-sim): it runs under
// synergyd and synergy-node as a real agent job (registers its lease,
// reports progress, checkpoints to a file and resumes from it, stops at its
// lease's end; with --follow-resizes it is resized in place), and its
// iterations take the time
// the zoo's profile gives at the allocation it holds, divided by the
// dilation:
//   seconds per iteration = iteration_time_s / speedup / dilation,
// with speedup the profile's at its slice's CPUs and memory per GPU
// (SensitivityProfile::SpeedupAt; GPUs counted from CUDA_VISIBLE_DEVICES),
// times the model's placement
// penalty when the lease spans servers (world size > 1). The simulator's
// default mode books a round at the same rate (sim/simulator.cc, Book).
//
// Iterations are paced against the clock, not slept one by one: every few
// milliseconds the job steps as many iterations as are due since its rate
// last changed, so scheduling delays of this process do not add up.
//   emulated_job --model NAME --dilation D --checkpoint-dir DIR [--zoo FILE]
//                [--follow-resizes]
// Each lease prints one line, "emulated_job JOB lease E: ... it/s", and a
// resize "emulated_job JOB resize R: ... it/s"; rank 0 writes the
// iterations it ran to DIR/JOB.result at the end.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "absl/strings/str_split.h"
#include "synergy/agent.h"
#include "synergy/allocation_speed.h"
#include "synergy/config_loader.h"
#include "synergy/default_configs.h"

namespace {

using Clock = std::chrono::steady_clock;

int GpusOfThisSlice() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr || *visible == '\0') return 1;
  return static_cast<int>(std::vector<std::string>(absl::StrSplit(visible, ',', absl::SkipEmpty())).size());
}

// Iterations a second (in real time) at `cpus` and `mem_gb` on this slice,
// by the simulator's rule (synergy/allocation_speed.h). A rank knows only
// its own slice: the lease's other ranks are taken to hold the same on
// their servers.
double RealRate(const synergy::ModelSpec& model, double dilation, int gpus, int world_size, double cpus,
                double mem_gb) {
  const synergy::Slices slices(std::max(1, world_size), synergy::Slice{0, synergy::Resources{gpus, cpus, mem_gb, 0}});
  const synergy::AllocationSpeed at =
      synergy::SpeedAtAllocation(&model.profile, slices, model.placement_penalty, /*planned=*/1.0);
  return at.rate() / model.iteration_time_s * dilation;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_name, zoo_file, dir;
  double dilation = 0;
  bool follow_resizes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) model_name = argv[++i];
    else if (a == "--dilation" && i + 1 < argc) dilation = std::atof(argv[++i]);
    else if (a == "--zoo" && i + 1 < argc) zoo_file = argv[++i];
    else if (a == "--checkpoint-dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--follow-resizes") follow_resizes = true;
    else {
      std::cerr << "emulated_job: unknown argument " << a << "\n";
      return 2;
    }
  }
  if (model_name.empty() || !(dilation > 0) || dir.empty()) {
    std::cerr << "usage: emulated_job --model NAME --dilation D --checkpoint-dir DIR [--zoo FILE] "
                 "[--follow-resizes]\n";
    return 2;
  }
  absl::StatusOr<synergy::ModelZoo> zoo =
      zoo_file.empty() ? synergy::DefaultModelZoo() : synergy::LoadModelZooFile(zoo_file);
  if (!zoo.ok()) {
    std::cerr << "emulated_job: " << zoo.status().message() << "\n";
    return 2;
  }
  const int index = zoo->Find(model_name);
  if (index < 0) {
    std::cerr << "emulated_job: --model: unknown model '" << model_name << "'\n";
    return 2;
  }
  const synergy::ModelSpec& model = zoo->model(index);

  synergy::agent::AgentOptions options;
  // A lease's end is heard at the next report: a tenth of a second here is
  // 10 s of simulated time at a dilation of 100.
  options.report_interval_ms = 50;
  auto agent = synergy::agent::Agent::FromEnvironment(options);
  if (!agent->managed()) {
    std::cerr << "emulated_job: runs under synergy-node only (no SYNERGY_JOB_ID)\n";
    return 2;
  }
  const synergy::agent::LeaseInfo& lease = agent->lease();
  const std::string& job = lease.job_id;
  std::filesystem::create_directories(dir);
  const std::string prefix = dir + "/" + job + ".ckpt";
  int64_t start = agent->start_iteration();
  if (start > 0) {
    std::ifstream in(agent->checkpoint_path());
    int64_t saved = -1;
    in >> saved;
    if (saved != start) {
      std::cerr << "emulated_job: checkpoint " << agent->checkpoint_path() << " holds iteration " << saved
                << ", expected " << start << "\n";
      return 5;
    }
  }
  agent->OnCheckpoint([&](int64_t at) {
    const std::string path = prefix + "." + std::to_string(at);
    {
      std::ofstream out(path + ".tmp", std::ios::trunc);
      out << at << "\n";
    }
    std::filesystem::rename(path + ".tmp", path);
    return path;
  });

  const int gpus = GpusOfThisSlice();
  // The rate holds from `since` (iteration `done_since` then) on; a resize
  // starts a new stretch.
  double rate = RealRate(model, dilation, gpus, lease.world_size, lease.cpus, lease.mem_gb);
  Clock::time_point since = Clock::now();
  int64_t done = start, done_since = start;
  if (follow_resizes) agent->OnResize([&](const synergy::agent::Allocation& a) {
    rate = RealRate(model, dilation, gpus, lease.world_size, a.cpus, a.mem_gb);
    since = Clock::now();
    done_since = done;
    std::cout << "emulated_job " << job << " resize " << a.revision << ": " << a.cpus << " cpus, " << a.mem_gb
              << " GB, " << rate << " it/s" << std::endl;
  });
  std::cout << "emulated_job " << job << " lease " << lease.epoch << ": " << model.name << " from iteration "
            << start << " of " << lease.total_iterations << " on " << gpus << " GPUs, " << lease.cpus << " cpus, "
            << lease.mem_gb << " GB, rank " << lease.rank << " of " << lease.world_size << ": " << rate << " it/s"
            << std::endl;
  if (!(rate > 0)) {
    std::cerr << "emulated_job: the profile gives no throughput at this allocation\n";
    return 4;
  }
  while (done < lease.total_iterations) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - since).count();
    const int64_t due = std::min<int64_t>(lease.total_iterations, done_since + static_cast<int64_t>(elapsed * rate));
    bool go_on = true;
    while (done < due && go_on) {
      ++done;
      go_on = agent->Step();  // may resize (a new stretch) or end the lease here
    }
    if (!go_on) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (agent->lease_ended()) return 0;
  if (lease.rank == 0) std::ofstream(dir + "/" + job + ".result") << done << "\n";
  agent->Finish();
  return 0;
}
