// What reading Slurm costs synergyd's Slurm executor each time it reads
// (slurm/slurm_json.h), at the queue sizes of issue 39's item 7:
//  - BM_ParseSqueue/N/L: squeue --json of N jobs, L of them lease jobs
//    (the rest other users' jobs, skipped unread), each job as Slurm 22.05
//    writes it (the first job of tests/data/slurm/squeue.json, about 3.6 KB,
//    with its id and name changed); bytes/s and the text's size.
//  - BM_ParseSinfo/N: sinfo --json of N nodes (tests/data/slurm/sinfo-busy.json's).
// Counters: the document's size; per read time is the benchmark's own.
#include <benchmark/benchmark.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "slurm/slurm_json.h"
#include "../slurm_samples.h"

namespace synergy::slurm {
namespace {

// The first object of the list `key` in `file`, as JSON text.
std::string FirstOf(const std::string& file, const char* key) {
  google::protobuf::Struct doc;
  if (!google::protobuf::util::JsonStringToMessage(SlurmSample(file), &doc).ok()) std::abort();
  std::string out;
  if (!google::protobuf::util::MessageToJsonString(doc.fields().at(key).list_value().values(0), &out).ok()) std::abort();
  return out;
}

std::string Squeue(int jobs, int leases) {
  const std::string job = FirstOf("squeue.json", "jobs");  // "synergy-j-000001-3", job_id 1
  std::string text = R"({"meta": {}, "errors": [], "jobs": [)";
  for (int i = 0; i < jobs; ++i) {
    std::string one = absl::StrReplaceAll(job, {{"\"job_id\":1,", absl::StrCat("\"job_id\":", i + 1, ",")}});
    one = absl::StrReplaceAll(one, {{"synergy-j-000001-3", i < leases ? absl::StrCat("synergy-j-", 100000 + i, "-1")
                                                                          : absl::StrCat("train-", i)}});
    absl::StrAppend(&text, i ? "," : "", one);
  }
  return text + "]}";
}

void BM_ParseSqueue(benchmark::State& state) {
  const std::string text = Squeue(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  size_t read = 0;
  for (auto _ : state) {
    auto jobs = ParseSqueueJson(text, "synergy");
    if (!jobs.ok()) state.SkipWithError(std::string(jobs.status().message()).c_str());
    read = jobs.ok() ? jobs->size() : 0;
    benchmark::DoNotOptimize(jobs);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["json_kb"] = static_cast<double>(text.size()) / 1024;
  state.counters["lease_jobs"] = static_cast<double>(read);
}
BENCHMARK(BM_ParseSqueue)->Args({200, 200})->Args({2000, 200})->Args({2000, 2000})->Unit(benchmark::kMillisecond);

void BM_ParseSinfo(benchmark::State& state) {
  const std::string node = FirstOf("sinfo-busy.json", "nodes");
  std::string text = R"({"meta": {}, "errors": [], "nodes": [)";
  for (int i = 0; i < state.range(0); ++i) {
    absl::StrAppend(&text, i ? "," : "", absl::StrReplaceAll(node, {{"\"sn1\"", absl::StrCat("\"sn", i, "\"")}}));
  }
  text += "]}";
  for (auto _ : state) {
    auto nodes = ParseSinfoJson(text, "synergy");
    if (!nodes.ok()) state.SkipWithError(std::string(nodes.status().message()).c_str());
    benchmark::DoNotOptimize(nodes);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["json_kb"] = static_cast<double>(text.size()) / 1024;
}
BENCHMARK(BM_ParseSinfo)->Arg(16)->Arg(256)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace synergy::slurm
