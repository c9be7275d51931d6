// SenseTime's Helios trace (S-Lab-System-Group/HeliosData): each cluster's
// cluster_log.csv, one row per Slurm job, with a header. Times are
// "YYYY-MM-DD HH:MM:SS"; cpu_num is the whole job's CPUs; no memory and no
// GPU model are recorded.
#include "absl/strings/str_cat.h"
#include "sim/import/import_fields.h"
#include "sim/import/trace_format.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

class Helios final : public TraceFormat {
 public:
  std::string name() const override { return "helios"; }
  std::vector<std::string> columns() const override {
    return {"job_id", "user",        "vc",         "gpu_num",  "cpu_num",  "node_num",
            "state",  "submit_time", "start_time", "end_time", "duration", "queue"};
  }
  bool header_required() const override { return true; }
  bool records_cpus() const override { return true; }
  RequestColumns request_columns() const override { return {"gpu_num", "cpu_num", ""}; }

  absl::StatusOr<ImportedRow> Read(const std::vector<absl::string_view>& f) const override {
    if (auto v = IntegerField("job_id", f[0], 0, INT64_MAX); !v.ok()) return v.status();
    auto user = NameField("user", f[1]);
    if (!user.ok()) return user.status();
    auto vc = NameField("vc", f[2]);
    if (!vc.ok()) return vc.status();
    auto gpus = IntegerField("gpu_num", f[3], 0, 1024);
    if (!gpus.ok()) return gpus.status();
    auto cpus = IntegerField("cpu_num", f[4], 0, 1'000'000);
    if (!cpus.ok()) return cpus.status();
    if (auto v = IntegerField("node_num", f[5], 0, 100'000); !v.ok()) return v.status();
    const absl::string_view state = f[6];
    const bool completed = state == "COMPLETED";
    if (!completed && state != "CANCELLED" && state != "FAILED" && state != "TIMEOUT" && state != "NODE_FAIL") {
      return absl::InvalidArgumentError(absl::StrCat(
          "state: ", QuoteValue(state), ": is not one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL"));
    }
    auto submit = DateTimeField("submit_time", f[7]);
    if (!submit.ok()) return submit.status();
    ImportedRow row;
    if (*gpus == 0) {
      row.dropped = "cpu_only";
      return row;
    }
    if (f[8].empty() || f[9].empty()) {
      row.dropped = "never_started";
      return row;
    }
    auto start = DateTimeField("start_time", f[8]);
    if (!start.ok()) return start.status();
    auto end = DateTimeField("end_time", f[9]);
    if (!end.ok()) return end.status();
    auto queued = RunSeconds("start_time", f[8], *start, absl::StrCat("submit_time (", f[7], ")"), *submit);
    if (!queued.ok()) return queued.status();
    auto run = RunSeconds("end_time", f[9], *end, absl::StrCat("start_time (", f[8], ")"), *start);
    if (!run.ok()) return run.status();
    if (*run == 0) {
      row.dropped = "zero_duration";
      return row;
    }
    ImportedJob job;
    job.submit_s = *submit;
    job.duration_s = *run;
    job.gpus = static_cast<int>(*gpus);
    job.cpus = static_cast<double>(*cpus);
    job.user = *std::move(user);
    job.tenant = *std::move(vc);  // a virtual cluster: Helios's tenant
    job.failed = !completed;
    row.job = std::move(job);
    return row;
  }
};

}  // namespace

std::unique_ptr<TraceFormat> MakeHeliosFormat() { return std::make_unique<Helios>(); }

}  // namespace synergy::sim
