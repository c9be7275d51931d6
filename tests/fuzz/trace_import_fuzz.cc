// synergy-sim import: bytes -> a public trace's job table (the first byte
// picks the format: openb, pai2020, helios or philly; openb and pai2020
// with a fixed machine list, the others on the embedded cluster) ->
// ImportTrace. A refused input names its file and writes nothing; an
// accepted one accounts for every line and writes a trace the simulator
// reads back, on the cluster it was imported for.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_checks.h"
#include "sim/import/trace_import.h"
#include "sim/trace.h"
#include "synergy/config_loader.h"
#include "synergy/default_configs.h"

namespace {

namespace fs = std::filesystem;
using synergy::fuzz::Fail;

struct World {
  synergy::ModelZoo zoo = *synergy::DefaultModelZoo();
  fs::path dir = fs::temp_directory_path() / ("synergy-import-fuzz-" + std::to_string(getpid()));
  World() {
    fs::create_directories(dir);
    std::ofstream(dir / "openb_nodes.csv") << "sn,cpu_milli,memory_mib,gpu,model\n"
                                              "n0,96000,786432,8,V100M32\nn1,64000,262144,2,P100\n";
    std::ofstream(dir / "pai_machines.csv") << "m1,V100,96,512,8\nm2,MISC,64,256,8\n";
  }
};

void CheckAccepted(const synergy::sim::ImportAccount& a, const World& w, const fs::path& out) {
  int64_t dropped = 0;
  for (const auto& [reason, n] : a.jobs.dropped) dropped += n;
  if (a.jobs.lines != a.jobs.header_lines + a.jobs.kept + dropped) Fail("lines not accounted for", "");
  auto cluster = fs::exists(out / "cluster.yaml") ? synergy::LoadClusterFile((out / "cluster.yaml").string())
                                                  : synergy::DefaultCluster();
  if (!cluster.ok()) Fail("the written cluster is refused", cluster.status().message());
  auto jobs = synergy::sim::LoadTrace((out / "trace.csv").string(), w.zoo, *cluster);
  if (!jobs.ok()) Fail("the written trace is refused", jobs.status().message());
  if (static_cast<int64_t>(jobs->size()) != a.jobs.kept) Fail("trace holds another number of jobs", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const World* world = new World;
  if (size == 0) return 0;
  static const char* const kFormats[] = {"openb", "pai2020", "helios", "philly"};
  synergy::sim::ImportOptions o;
  o.format = kFormats[data[0] % 4];
  const fs::path in = world->dir / "in.txt";
  const fs::path out = world->dir / "out";
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(data + 1), size - 1);
  o.in_path = in.string();
  o.out_dir = out.string();
  if (o.format == "openb") o.nodes_path = (world->dir / "openb_nodes.csv").string();
  if (o.format == "pai2020") o.nodes_path = (world->dir / "pai_machines.csv").string();
  o.keep_failed = (data[0] & 4) != 0;
  auto account = synergy::sim::ImportTrace(o, world->zoo);
  if (!account.ok()) {
    synergy::fuzz::CheckRefusal(account.status(), o.in_path);
    if (fs::exists(out)) Fail("a refused input left output", account.status().message());
    return 0;
  }
  CheckAccepted(*account, *world, out);
  fs::remove_all(out);
  return 0;
}
