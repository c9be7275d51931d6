// openb's packing variants (trace_format.h, MakeOpenbPackingFormat): the
// FGD paper's workloads, sampled from the default pod list to hold more
// multi-GPU pods, given without phases or times (its simulator packs pods
// and never ends them). A replay needs times: each pod takes those of its
// namesake in the default list, or borrows those of a pod of the list with
// as many GPUs.
#include <array>
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sim/import/import_fields.h"
#include "sim/import/job_models.h"
#include "sim/import/table_rows.h"
#include "sim/import/trace_format.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

constexpr uint64_t kDonorDraw = 3;

class OpenbPacking final : public TraceFormat {
 public:
  OpenbPacking(std::map<std::string, ImportedRow, std::less<>> by_name, uint64_t seed)
      : by_name_(std::move(by_name)), seed_(seed), openb_(MakeOpenbFormat()) {
    for (const auto& [name, row] : by_name_) {
      // Donors ran to their end or the trace's: a failed run's time is no
      // sample of a pod's work.
      if (row.job && !row.job->failed) donors_[row.job->gpus].push_back(&*row.job), all_.push_back(&*row.job);
    }
  }
  std::string name() const override { return "openb"; }
  std::vector<std::string> columns() const override {
    return {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"};
  }
  bool header_required() const override { return true; }
  bool records_cpus() const override { return true; }
  RequestColumns request_columns() const override { return openb_->request_columns(); }
  std::vector<std::string> node_columns() const override { return openb_->node_columns(); }
  bool node_header_required() const override { return true; }
  absl::StatusOr<ImportedNode> ReadNode(const std::vector<absl::string_view>& f) const override {
    return openb_->ReadNode(f);
  }

  absl::StatusOr<ImportedRow> Read(const std::vector<absl::string_view>& f) const override {
    // The default list's form of the pod, with its namesake's times or a
    // donor's, read by the default list's own reader.
    auto it = by_name_.find(f[0]);
    const ImportedJob* times = it != by_name_.end() && it->second.job ? &*it->second.job : nullptr;
    if (it != by_name_.end() && !it->second.job) {
      const std::array<std::string, 2> any_times{"0", "1"};
      if (auto v = openb_->Read(Padded(f, any_times, false)); !v.ok())
        return v.status();  // its own fields still checked
      return it->second;    // dropped there: dropped here, for the same reason
    }
    bool borrowed = false;
    if (times == nullptr) {
      auto gpus = IntegerField("num_gpu", f[3], 0, 1024);
      if (!gpus.ok()) return gpus.status();
      auto d = donors_.find(static_cast<int>(*gpus));
      const std::vector<const ImportedJob*>& pool = d != donors_.end() ? d->second : all_;
      if (pool.empty()) return absl::InvalidArgumentError("the pod list of --times has no pod that ran");
      times = pool[SeededDraw(seed_, NameKey(std::string_view(f[0].data(), f[0].size())), kDonorDraw) % pool.size()];
      borrowed = true;
    }
    const int64_t submit = static_cast<int64_t>(times->submit_s);
    const std::array<std::string, 2> times_text{absl::StrCat(submit),
                                                absl::StrCat(submit + static_cast<int64_t>(times->duration_s))};
    auto row = openb_->Read(Padded(f, times_text, times->failed));
    if (!row.ok() || !row->job) return row;
    row->job->times_borrowed = borrowed;
    return row;
  }

 private:
  // The pod's five fields with a phase and `times` (its start, scheduled
  // then, and end; they must outlive the fields) in the default list's form.
  static std::vector<absl::string_view> Padded(const std::vector<absl::string_view>& f,
                                               const std::array<std::string, 2>& times, bool failed) {
    return {f[0], f[1], f[2], f[3], f[4], "", "BE", failed ? "Failed" : "Succeeded", times[0], times[1], times[0]};
  }

  std::map<std::string, ImportedRow, std::less<>> by_name_;
  uint64_t seed_;
  std::unique_ptr<TraceFormat> openb_;
  std::map<int, std::vector<const ImportedJob*>> donors_;
  std::vector<const ImportedJob*> all_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<TraceFormat>> MakeOpenbPackingFormat(const std::string& times_path, uint64_t seed,
                                                                    TableAccount& times) {
  std::unique_ptr<TraceFormat> openb = MakeOpenbFormat();
  std::map<std::string, ImportedRow, std::less<>> by_name;
  TableShape shape{openb->columns(), true, "openb"};
  absl::Status st = ForEachRow(times_path, shape, times, [&](const std::vector<absl::string_view>& f, int64_t) {
    auto row = openb->Read(f);
    if (!row.ok()) return row.status();
    if (!by_name.emplace(std::string(f[0]), *std::move(row)).second) {
      return absl::InvalidArgumentError(absl::StrCat("name: ", QuoteValue(f[0]), ": names a second pod"));
    }
    ++times.kept;
    return absl::OkStatus();
  });
  if (!st.ok()) return st;
  return std::unique_ptr<TraceFormat>(new OpenbPacking(std::move(by_name), seed));
}

}  // namespace synergy::sim
