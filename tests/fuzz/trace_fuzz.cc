// Trace CSV (synergy-sim run --trace): bytes -> ParseTrace on the embedded
// cluster and zoo. Accepted traces must hold what trace.h promises and
// replay to the same jobs through FormatTraceLine.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_checks.h"
#include "sim/trace.h"
#include "synergy/default_configs.h"

namespace {

using synergy::fuzz::Fail;

struct World {
  synergy::Cluster cluster = *synergy::DefaultCluster();
  synergy::ModelZoo zoo = *synergy::DefaultModelZoo();
};

void CheckJobs(const std::vector<synergy::sim::JobSpec>& jobs, const World& w) {
  double last_arrival = 0;
  for (const synergy::sim::JobSpec& job : jobs) {
    if (job.id < 0 || job.gpus < 1 || job.gpus > w.cluster.total().gpus) Fail("job out of bounds", "");
    if (!(job.arrival_s >= 0 && job.arrival_s <= synergy::sim::kMaxTraceArrivalS)) Fail("arrival", "");
    if (!(job.iterations > 0 && job.iterations <= synergy::sim::kMaxTraceIterations)) Fail("iterations", "");
    if (job.arrival_s < last_arrival) Fail("jobs not in arrival order", "");
    last_arrival = job.arrival_s;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const World* world = new World;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto jobs = synergy::sim::ParseTrace(text, "fuzz.csv", world->zoo, world->cluster);
  if (!jobs.ok()) {
    synergy::fuzz::CheckRefusal(jobs.status(), "fuzz.csv");
    return 0;
  }
  CheckJobs(*jobs, *world);
  const std::string replay = synergy::sim::FormatTrace(*jobs, world->zoo);
  auto again = synergy::sim::ParseTrace(replay, "replay.csv", world->zoo, world->cluster);
  if (!again.ok()) Fail("a formatted trace is refused", again.status().message());
  if (again->size() != jobs->size()) Fail("replay has another number of jobs", "");
  for (size_t i = 0; i < jobs->size(); ++i) {
    const auto& a = (*jobs)[i];
    const auto& b = (*again)[i];
    if (a.id != b.id || a.model != b.model || a.arrival_s != b.arrival_s ||
        a.iterations != b.iterations || a.gpus != b.gpus || a.checkpoints != b.checkpoints ||
        a.requested_cpus != b.requested_cpus || a.requested_mem_gb != b.requested_mem_gb ||
        a.gpu_fraction != b.gpu_fraction || a.gpu_type != b.gpu_type || a.duration_s != b.duration_s ||
        a.user != b.user) {
      Fail("replay differs", synergy::sim::FormatTraceLine(a, world->zoo));
    }
  }
  return 0;
}
