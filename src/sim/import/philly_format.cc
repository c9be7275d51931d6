// Microsoft's Philly trace (msr-fiddle/philly-traces): cluster_job_log, one
// JSON array of jobs, each with its scheduling attempts and the GPUs each
// attempt held on each server. Times are "YYYY-MM-DD HH:MM:SS"; a missing
// one is null or "None" (a logging gap, or the job still running when the
// log was taken). No CPUs, memory or GPU model are recorded.
//
// A job's GPUs are those its last attempt held; its run time is the sum of
// its attempts' (what it held GPUs for, restarts included).
#include "absl/strings/str_cat.h"
#include "sim/import/import_fields.h"
#include "sim/import/trace_format.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

constexpr size_t kMaxAttempts = 10000;
constexpr size_t kMaxServersPerAttempt = 1024;

// A time that may be missing: nullopt for null or "None".
absl::StatusOr<std::optional<double>> OptionalTime(const YamlMap& m, absl::string_view key) {
  const YamlValue v = m.Get(key);
  if (v.IsNull()) return std::nullopt;
  auto text = v.String(64);
  if (!text.ok()) return text.status();
  if (*text == "None") return std::nullopt;
  auto t = DateTimeField(v.field(), *text);
  if (!t.ok()) return t.status();
  return *t;
}

struct Attempts {
  double run_s = 0;
  int last_gpus = 0;
  bool open = false;  // an attempt without its start or end
};

absl::StatusOr<Attempts> ReadAttempts(const YamlValue& list) {
  Attempts out;
  auto attempts = list.List(0, kMaxAttempts);
  if (!attempts.ok()) return attempts.status();
  for (const YamlValue& a : *attempts) {
    auto m = a.Map({"start_time", "end_time", "detail"});
    if (!m.ok()) return m.status();
    auto start = OptionalTime(*m, "start_time");
    if (!start.ok()) return start.status();
    auto end = OptionalTime(*m, "end_time");
    if (!end.ok()) return end.status();
    if (!*start || !*end) {
      out.open = true;
    } else if (**end < **start) {
      return m->Get("end_time").Error("is before the attempt's start_time");
    } else {
      out.run_s += **end - **start;
    }
    auto servers = m->Get("detail").List(0, kMaxServersPerAttempt);
    if (!servers.ok()) return servers.status();
    int gpus = 0;
    for (const YamlValue& s : *servers) {
      auto sm = s.Map({"ip", "gpus"});
      if (!sm.ok()) return sm.status();
      auto ids = sm->Get("gpus").StringList(0, 1024, 64 * 1024);
      if (!ids.ok()) return ids.status();
      gpus += static_cast<int>(ids->size());
    }
    if (gpus > 0) out.last_gpus = gpus;
  }
  return out;
}

class Philly final : public TraceFormat {
 public:
  std::string name() const override { return "philly"; }
  std::vector<std::string> columns() const override { return {}; }
  bool header_required() const override { return false; }
  bool records_cpus() const override { return false; }
  RequestColumns request_columns() const override { return {"attempts", "", ""}; }
  absl::StatusOr<ImportedRow> Read(const std::vector<absl::string_view>&) const override {
    return absl::InvalidArgumentError("philly's job log is JSON");
  }
  bool json_records() const override { return true; }

  absl::StatusOr<ImportedRow> ReadRecord(const YamlValue& record) const override {
    auto m = record.Map({"status", "vc", "jobid", "attempts", "submitted_time", "user"});
    if (!m.ok()) return m.status();
    auto status = m->Get("status").String(64);
    if (!status.ok()) return status.status();
    if (*status != "Pass" && *status != "Killed" && *status != "Failed") {
      return m->Get("status").Error("is not one of Pass, Killed, Failed");
    }
    auto user_text = m->Get("user").String(kMaxTraceNameBytesForUser);
    if (!user_text.ok()) return user_text.status();
    auto user = NameField("user", *user_text);
    if (!user.ok()) return user.status();
    std::string vc;
    if (m->Has("vc")) {
      auto vc_text = m->Get("vc").String(kMaxTraceNameBytesForUser);
      if (!vc_text.ok()) return vc_text.status();
      auto named = NameField("vc", *vc_text);
      if (!named.ok()) return named.status();
      vc = *std::move(named);
    }
    auto submitted = OptionalTime(*m, "submitted_time");
    if (!submitted.ok()) return submitted.status();
    if (!*submitted) return m->Get("submitted_time").Error("is missing: a job is placed by when it was submitted");
    auto attempts = ReadAttempts(m->Get("attempts"));
    if (!attempts.ok()) return attempts.status();
    ImportedRow row;
    if (attempts->last_gpus == 0) {
      row.dropped = "never_started";
      return row;
    }
    if (attempts->open) {
      row.dropped = "attempt_without_times";
      return row;
    }
    if (attempts->run_s == 0) {
      row.dropped = "zero_duration";
      return row;
    }
    ImportedJob job;
    job.submit_s = **submitted;
    job.duration_s = attempts->run_s;
    job.gpus = attempts->last_gpus;
    job.user = *std::move(user);
    job.tenant = std::move(vc);  // a virtual cluster: Philly's tenant
    job.failed = *status != "Pass";
    row.job = std::move(job);
    return row;
  }

 private:
  static constexpr size_t kMaxTraceNameBytesForUser = 1024;
};

}  // namespace

std::unique_ptr<TraceFormat> MakePhillyFormat() { return std::make_unique<Philly>(); }

}  // namespace synergy::sim
