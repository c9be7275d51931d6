#include "cli/history.h"

#include <algorithm>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/tables.h"
#include "synergy/json_text.h"
#include "service/names.h"
#include "service/rfc3339.h"
#include "sim/trace_columns.h"

namespace synergy::cli {

namespace {

struct Record {
  std::string id, name, user, outcome;
  int64_t submit_ms = 0;
  std::optional<int64_t> start_ms, end_ms;
  int64_t run_ms = 0;
  int attempts = 0;
  int gpus = 0;
  double gpu_hours = 0;
  std::optional<int64_t> wait_ms() const {
    if (!start_ms) return std::nullopt;
    return *start_ms - submit_ms;
  }
  std::optional<int64_t> jct_ms() const {
    if (!end_ms) return std::nullopt;
    return *end_ms - submit_ms;
  }
};

Record RecordOf(const v1::Job& j) {
  Record r;
  r.id = j.id();
  r.name = j.spec().name();
  r.user = j.owner();
  r.outcome = service::JobStateName(j.state());
  r.submit_ms = j.submitted_unix_ms();
  if (j.first_launch_unix_ms() > 0) r.start_ms = j.first_launch_unix_ms();
  if (j.finished_unix_ms() > 0) r.end_ms = j.finished_unix_ms();
  r.run_ms = j.attained_service_ms();
  r.attempts = j.attempts();
  r.gpus = j.spec().gpus();
  r.gpu_hours = j.gpu_seconds() / 3600;
  return r;
}

std::string Seconds(std::optional<int64_t> ms) { return ms ? absl::StrFormat("%.3f", *ms / 1000.0) : ""; }
std::string Time(std::optional<int64_t> ms) { return ms ? service::FormatRfc3339Utc(*ms) : ""; }

std::string CsvField(const std::string& f) {
  if (f.find_first_of(",\"\r\n") == std::string::npos) return f;
  std::string out = "\"";
  for (char c : f) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// gpus and gpu_hours last: scripts reading the columns before them by
// position read on.
const char* kColumns[] = {"id",    "name",     "user",    "submit", "start", "end",      "wait_s",
                          "run_s", "jct_s", "attempts", "outcome", "gpus",  "gpu_hours"};

}  // namespace

absl::StatusOr<int64_t> ParseSince(const std::string& text, int64_t now_ms) {
  if (!text.empty() && std::string("smhd").find(text.back()) != std::string::npos) {
    int64_t n = 0;
    if (absl::SimpleAtoi(text.substr(0, text.size() - 1), &n) && n >= 0) {
      const int64_t unit = text.back() == 's' ? 1 : text.back() == 'm' ? 60 : text.back() == 'h' ? 3600 : 86400;
      if (n <= int64_t{100} * 365 * 86400 / unit) return now_ms - n * unit * 1000;
    }
  }
  return service::ParseRfc3339(text, "--since");
}

std::vector<v1::Job> JobsSince(std::vector<v1::Job> jobs, int64_t since_ms) {
  std::erase_if(jobs, [&](const v1::Job& j) { return j.submitted_unix_ms() < since_ms; });
  std::sort(jobs.begin(), jobs.end(), [](const v1::Job& a, const v1::Job& b) { return a.id() < b.id(); });
  return jobs;
}

std::string HistoryTable(const std::vector<v1::Job>& jobs, int64_t now_ms) {
  std::vector<std::vector<std::string>> rows = {
      {"ID", "NAME", "USER", "SUBMIT", "START", "END", "WAIT", "RUN", "GPUS", "GPU-H", "JCT", "ATTEMPTS", "OUTCOME"}};
  const auto dur = [](std::optional<int64_t> ms) { return ms ? Duration(*ms) : std::string("-"); };
  const auto time = [](std::optional<int64_t> ms) { return ms ? service::FormatRfc3339Utc(*ms).substr(0, 19) : "-"; };
  for (const v1::Job& j : jobs) {
    const Record r = RecordOf(j);
    // Still waiting: the wait so far.
    const std::optional<int64_t> wait = r.start_ms ? r.wait_ms() : std::optional<int64_t>(now_ms - r.submit_ms);
    rows.push_back({r.id, r.name.empty() ? "-" : r.name, r.user.empty() ? "-" : r.user, time(r.submit_ms),
                    time(r.start_ms), time(r.end_ms), dur(wait), Duration(r.run_ms), absl::StrCat(r.gpus),
                    absl::StrFormat("%.2f", r.gpu_hours), dur(r.jct_ms()), absl::StrCat(r.attempts), r.outcome});
  }
  return Table(rows);
}

std::string HistoryCsv(const std::vector<v1::Job>& jobs) {
  std::string out = absl::StrCat(absl::StrJoin(std::begin(kColumns), std::end(kColumns), ","), "\n");
  for (const v1::Job& j : jobs) {
    const Record r = RecordOf(j);
    const std::vector<std::string> cells = {CsvField(r.id), CsvField(r.name), CsvField(r.user), Time(r.submit_ms),
                                            Time(r.start_ms), Time(r.end_ms), Seconds(r.wait_ms()),
                                            Seconds(r.run_ms), Seconds(r.jct_ms()), absl::StrCat(r.attempts),
                                            r.outcome, absl::StrCat(r.gpus), absl::StrFormat("%.4f", r.gpu_hours)};
    absl::StrAppend(&out, absl::StrJoin(cells, ","), "\n");
  }
  return out;
}

std::string HistoryJson(const std::vector<v1::Job>& jobs) {
  std::vector<std::string> objects;
  const auto text_or_null = [](const std::string& s) { return s.empty() ? std::string("null") : s; };
  for (const v1::Job& j : jobs) {
    const Record r = RecordOf(j);
    const std::vector<std::string> values = {
        synergy::JsonQuote(r.id), synergy::JsonQuote(r.name), synergy::JsonQuote(r.user), synergy::JsonQuote(Time(r.submit_ms)),
        r.start_ms ? synergy::JsonQuote(Time(r.start_ms)) : "null", r.end_ms ? synergy::JsonQuote(Time(r.end_ms)) : "null",
        text_or_null(Seconds(r.wait_ms())), Seconds(r.run_ms), text_or_null(Seconds(r.jct_ms())),
        absl::StrCat(r.attempts), synergy::JsonQuote(r.outcome), absl::StrCat(r.gpus),
        absl::StrFormat("%.4f", r.gpu_hours)};
    std::vector<std::string> fields;
    for (size_t i = 0; i < values.size(); ++i) fields.push_back(absl::StrCat("\"", kColumns[i], "\": ", values[i]));
    objects.push_back(absl::StrCat("  {", absl::StrJoin(fields, ", "), "}"));
  }
  return objects.empty() ? "[]\n" : absl::StrCat("[\n", absl::StrJoin(objects, ",\n"), "\n]\n");
}

HistoryTraceOut HistoryTrace(const std::vector<v1::Job>& jobs) {
  using sim::TraceColumn;
  HistoryTraceOut out;
  std::vector<std::string> names;
  for (TraceColumn c : {TraceColumn::kJobId, TraceColumn::kModel, TraceColumn::kArrival, TraceColumn::kIterations,
                        TraceColumn::kGpus, TraceColumn::kCheckpoints, TraceColumn::kDurationS, TraceColumn::kUser,
                        TraceColumn::kTimeLimitS, TraceColumn::kTenant}) {
    names.push_back(sim::TraceColumnName(c));
  }
  out.trace = absl::StrCat(absl::StrJoin(names, ","), "\n");
  int64_t first_ms = -1;
  std::vector<const v1::Job*> kept;
  for (const v1::Job& j : jobs) {
    if (j.state() != v1::JOB_STATE_SUCCEEDED) {
      ++out.not_succeeded;
      continue;
    }
    if (j.spec().model().empty() || j.spec().iterations() <= 0) {
      ++out.without_model_or_iterations;
      continue;
    }
    kept.push_back(&j);
    if (first_ms < 0 || j.submitted_unix_ms() < first_ms) first_ms = j.submitted_unix_ms();
  }
  for (const v1::Job* j : kept) {
    // Ids are j-NNNNNN; the trace's are their numbers.
    uint64_t number = 0;
    absl::string_view id = j->id();
    if (id.size() > 2 && id.substr(0, 2) == "j-") id.remove_prefix(2);
    if (!absl::SimpleAtoi(id, &number)) number = static_cast<uint64_t>(out.written);
    // A name the trace takes as it is, else none.
    const bool plain_owner = sim::IsPlainTraceName(j->owner());
    absl::StrAppend(&out.trace, number, ",", j->spec().model(), ",",
                    absl::StrFormat("%.3f", (j->submitted_unix_ms() - first_ms) / 1000.0), ",", j->spec().iterations(),
                    ",", j->spec().gpus(), ",", j->spec().uses_agent() ? 1 : 0, ",",
                    absl::StrFormat("%.3f", j->attained_service_ms() / 1000.0), ",", plain_owner ? j->owner() : "",
                    ",", j->spec().time_limit_s() > 0 ? absl::StrCat(j->spec().time_limit_s()) : "", ",",
                    sim::IsPlainTraceName(j->spec().tenant()) ? j->spec().tenant() : "", "\n");
    ++out.written;
  }
  return out;
}

}  // namespace synergy::cli
