// Alibaba PAI 2020 (alibaba/clusterdata, cluster-trace-gpu-v2020): the task
// table, one row per task of a job (its instances alike), and the machine
// spec. The tables have no header line (data/*.header names the columns).
// Times are seconds on a shifted clock; plan_cpu is per instance in
// hundredths of a core (600 = 6 cores), plan_mem GB per instance, plan_gpu
// per instance in hundredths of a GPU (50 = half). A task is imported as a
// job: its GPU tasks (workers) are what a GPU scheduler places; parameter
// servers (plan_gpu 0) are CPU-only and dropped as such.
#include <array>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "sim/import/import_fields.h"
#include "sim/import/trace_format.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

constexpr double kMaxInstances = 100000;
constexpr double kMaxPlanCpu = 100000;  // hundredths of a core: 1,000 cores an instance
constexpr double kMaxPlanMemGb = 100000;
constexpr double kMaxPlanGpu = 102400;  // hundredths of a GPU
constexpr double kMaxTimeS = 1e10;

// plan_cpu, plan_mem and plan_gpu; an empty one is not recorded (0).
absl::StatusOr<std::array<double, 3>> Plans(const std::vector<absl::string_view>& f) {
  std::array<double, 3> plans{0, 0, 0};
  const std::array<std::pair<const char*, double>, 3> fields{
      {{"plan_cpu", kMaxPlanCpu}, {"plan_mem", kMaxPlanMemGb}, {"plan_gpu", kMaxPlanGpu}}};
  for (size_t i = 0; i < 3; ++i) {
    if (f[6 + i].empty()) continue;
    auto v = NumberField(fields[i].first, f[6 + i], 0, fields[i].second);
    if (!v.ok()) return v.status();
    plans[i] = *v;
  }
  return plans;
}

class Pai2020 final : public TraceFormat {
 public:
  std::string name() const override { return "pai2020"; }
  std::vector<std::string> columns() const override {
    return {"job_name", "task_name", "inst_num", "status",   "start_time",
            "end_time", "plan_cpu",  "plan_mem", "plan_gpu", "gpu_type"};
  }
  bool header_required() const override { return false; }
  bool records_cpus() const override { return true; }
  RequestColumns request_columns() const override { return {"plan_gpu", "plan_cpu", "plan_mem"}; }

  absl::StatusOr<ImportedRow> Read(const std::vector<absl::string_view>& f) const override {
    if (auto v = NameField("job_name", f[0]); !v.ok()) return v.status();
    if (auto v = NameField("task_name", f[1]); !v.ok()) return v.status();
    auto instances = NumberField("inst_num", f[2], 1, kMaxInstances);
    if (!instances.ok()) return instances.status();
    if (*instances != std::floor(*instances)) {
      return absl::InvalidArgumentError(absl::StrCat("inst_num: ", QuoteValue(f[2]), ": is not a whole number"));
    }
    const absl::string_view status = f[3];
    if (status != "Terminated" && status != "Failed" && status != "Running" && status != "Waiting") {
      return absl::InvalidArgumentError(
          absl::StrCat("status: ", QuoteValue(status), ": is not one of Terminated, Failed, Running, Waiting"));
    }
    auto gpu_type = NameField("gpu_type", f[9]);
    if (!gpu_type.ok()) return gpu_type.status();
    ImportedRow row;
    const auto plans = Plans(f);
    if (!plans.ok()) return plans.status();
    const auto [plan_cpu, plan_mem, plan_gpu] = *plans;
    if (plan_gpu == 0) {
      row.dropped = "cpu_only";
      return row;
    }
    if (status == "Waiting" || f[4].empty()) {
      row.dropped = "never_started";
      return row;
    }
    auto start = NumberField("start_time", f[4], 0, kMaxTimeS);
    if (!start.ok()) return start.status();
    if (f[5].empty()) {
      row.dropped = "no_end_time";
      return row;
    }
    auto end = NumberField("end_time", f[5], 0, kMaxTimeS);
    if (!end.ok()) return end.status();
    auto run = RunSeconds("end_time", f[5], *end, absl::StrCat("start_time (", f[4], ")"), *start);
    if (!run.ok()) return run.status();
    if (*run == 0) {
      row.dropped = "zero_duration";
      return row;
    }
    ImportedJob job;
    job.submit_s = *start;
    job.duration_s = *run;
    const double gpu_hundredths = plan_gpu * *instances;
    job.gpus = static_cast<int>(std::ceil(gpu_hundredths / 100));
    if (gpu_hundredths < 100) job.gpu_fraction = gpu_hundredths / 100;
    job.cpus = plan_cpu * *instances / 100;
    job.mem_gb = plan_mem * *instances;
    job.gpu_models = *std::move(gpu_type);
    job.failed = status == "Failed";
    row.job = std::move(job);
    return row;
  }

  std::vector<std::string> node_columns() const override {
    return {"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"};
  }
  absl::StatusOr<ImportedNode> ReadNode(const std::vector<absl::string_view>& f) const override {
    ImportedNode node;
    auto cpus = NumberField("cap_cpu", f[2], 1, 1e6);
    if (!cpus.ok()) return cpus.status();
    auto mem = NumberField("cap_mem", f[3], 1, 1e9);
    if (!mem.ok()) return mem.status();
    auto gpus = NumberField("cap_gpu", f[4], 0, 1024);
    if (!gpus.ok()) return gpus.status();
    if (*gpus != std::floor(*gpus)) {
      return absl::InvalidArgumentError(absl::StrCat("cap_gpu: ", QuoteValue(f[4]), ": is not a whole number"));
    }
    node.gpus = static_cast<int>(*gpus);
    node.cpus = *cpus;
    node.mem_gb = *mem;
    auto model = MachineGpuModel("gpu_type", f[1], node.gpus, "machine");
    if (!model.ok()) return model.status();
    node.gpu_model = *std::move(model);
    return node;
  }
};

}  // namespace

std::unique_ptr<TraceFormat> MakePai2020Format() { return std::make_unique<Pai2020>(); }

}  // namespace synergy::sim
