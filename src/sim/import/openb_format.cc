// Alibaba's openb GPU-cluster trace (alibaba/clusterdata,
// cluster-trace-gpu-v2023/csv): Kubernetes pods and the nodes they ran on.
// Times are seconds on the trace's clock; CPUs in thousandths of a core,
// memory in MiB, a pod's GPU share in thousandths (gpu_milli, for one-GPU
// pods). gpu_spec names the GPU models a pod may run on ('|' between them).
// A pod's run is from scheduled_time to deletion_time; pods still Running
// at the trace's end were deleted then (their durations are cut there).
#include "absl/strings/str_cat.h"
#include "sim/import/import_fields.h"
#include "sim/import/trace_format.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

// Past any real pod or node: 1,024 GPUs, a million cores, a billion MiB.
constexpr int64_t kMaxMilliCpus = 1'000'000'000;
constexpr int64_t kMaxMib = 1'000'000'000;
constexpr int64_t kMaxGpus = 1024;
constexpr int64_t kMaxTraceTimeS = 1'000'000'000;

absl::Status CheckPhase(absl::string_view phase) {
  if (phase == "Succeeded" || phase == "Running" || phase == "Failed" || phase == "Pending") return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("pod_phase: ", QuoteValue(phase), ": is not one of Succeeded, Running, Failed, Pending"));
}

class Openb final : public TraceFormat {
 public:
  std::string name() const override { return "openb"; }
  std::vector<std::string> columns() const override {
    return {"name", "cpu_milli", "memory_mib",    "num_gpu",       "gpu_milli",     "gpu_spec",
            "qos",  "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
  }
  bool header_required() const override { return true; }
  bool records_cpus() const override { return true; }
  RequestColumns request_columns() const override { return {"num_gpu", "cpu_milli", "memory_mib"}; }

  absl::StatusOr<ImportedRow> Read(const std::vector<absl::string_view>& f) const override {
    if (auto v = NameField("name", f[0]); !v.ok()) return v.status();
    auto milli_cpus = IntegerField("cpu_milli", f[1], 0, kMaxMilliCpus);
    if (!milli_cpus.ok()) return milli_cpus.status();
    auto mib = IntegerField("memory_mib", f[2], 0, kMaxMib);
    if (!mib.ok()) return mib.status();
    auto gpus = IntegerField("num_gpu", f[3], 0, kMaxGpus);
    if (!gpus.ok()) return gpus.status();
    auto gpu_milli = IntegerField("gpu_milli", f[4], 0, 1000);
    if (!gpu_milli.ok()) return gpu_milli.status();
    auto spec = NameField("gpu_spec", f[5]);
    if (!spec.ok()) return spec.status();
    if (auto v = NameField("qos", f[6]); !v.ok()) return v.status();
    if (absl::Status st = CheckPhase(f[7]); !st.ok()) return st;
    auto created = IntegerField("creation_time", f[8], 0, kMaxTraceTimeS);
    if (!created.ok()) return created.status();
    auto deleted = IntegerField("deletion_time", f[9], 0, kMaxTraceTimeS);
    if (!deleted.ok()) return deleted.status();
    ImportedRow row;
    if (*gpus == 0) {
      row.dropped = "cpu_only";
      return row;
    }
    if (*gpu_milli == 0) {
      return absl::InvalidArgumentError(absl::StrCat("gpu_milli: '0': a pod of ", *gpus, " GPUs asks for no GPU"));
    }
    if (f[10].empty()) {
      row.dropped = "never_scheduled";
      return row;
    }
    auto scheduled = IntegerField("scheduled_time", f[10], *created, kMaxTraceTimeS);
    if (!scheduled.ok()) return scheduled.status();
    auto run = RunSeconds("deletion_time", f[9], static_cast<double>(*deleted),
                          absl::StrCat("the pod was scheduled (", *scheduled, ")"), static_cast<double>(*scheduled));
    if (!run.ok()) return run.status();
    if (*run == 0) {
      row.dropped = "zero_duration";
      return row;
    }
    ImportedJob job;
    job.submit_s = static_cast<double>(*created);
    job.duration_s = *run;
    job.gpus = static_cast<int>(*gpus);
    if (*gpus == 1 && *gpu_milli < 1000) job.gpu_fraction = static_cast<double>(*gpu_milli) / 1000;
    job.cpus = static_cast<double>(*milli_cpus) / 1000;
    job.mem_gb = static_cast<double>(*mib) / 1024;
    job.gpu_models = *std::move(spec);
    job.failed = f[7] == "Failed";
    row.job = std::move(job);
    return row;
  }

  std::vector<std::string> node_columns() const override { return {"sn", "cpu_milli", "memory_mib", "gpu", "model"}; }
  bool node_header_required() const override { return true; }
  absl::StatusOr<ImportedNode> ReadNode(const std::vector<absl::string_view>& f) const override {
    if (auto v = NameField("sn", f[0]); !v.ok()) return v.status();
    auto milli_cpus = IntegerField("cpu_milli", f[1], 1, kMaxMilliCpus);
    if (!milli_cpus.ok()) return milli_cpus.status();
    auto mib = IntegerField("memory_mib", f[2], 1, kMaxMib);
    if (!mib.ok()) return mib.status();
    auto gpus = IntegerField("gpu", f[3], 0, kMaxGpus);
    if (!gpus.ok()) return gpus.status();
    ImportedNode node;
    node.gpus = static_cast<int>(*gpus);
    node.cpus = static_cast<double>(*milli_cpus) / 1000;
    node.mem_gb = static_cast<double>(*mib) / 1024;
    auto model = MachineGpuModel("model", f[4], node.gpus, "node");
    if (!model.ok()) return model.status();
    node.gpu_model = *std::move(model);
    return node;
  }
};

}  // namespace

std::unique_ptr<TraceFormat> MakeOpenbFormat() { return std::make_unique<Openb>(); }

}  // namespace synergy::sim
