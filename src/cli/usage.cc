#include "cli/usage.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/tables.h"
#include "service/escape.h"
#include "synergy/json_text.h"

namespace synergy::cli {
namespace {

void AddToRow(UsageRow& row, const v1::Job& j) {
  ++row.jobs;
  row.gpu_hours += j.gpu_seconds() / 3600;
  row.cpu_hours += j.cpu_seconds() / 3600;
  row.gb_hours += j.mem_gb_seconds() / 3600;
  if (j.first_launch_unix_ms() > 0) {
    row.wait_s_sum += (j.first_launch_unix_ms() - j.submitted_unix_ms()) / 1000.0;
    ++row.launched;
  }
  if (j.finished_unix_ms() > 0) {
    row.jct_s_sum += (j.finished_unix_ms() - j.submitted_unix_ms()) / 1000.0;
    ++row.ended;
  }
}

// Cells of a row as CSV and JSON write them: hours to 4 places, means in
// seconds to 3 (empty where there is nothing to average).
std::vector<std::string> UsageCells(const UsageRow& r) {
  return {absl::StrCat(r.jobs),
          absl::StrFormat("%.4f", r.gpu_hours),
          absl::StrFormat("%.4f", r.cpu_hours),
          absl::StrFormat("%.4f", r.gb_hours),
          r.launched > 0 ? absl::StrFormat("%.3f", r.MeanWaitS()) : "",
          r.ended > 0 ? absl::StrFormat("%.3f", r.MeanJctS()) : ""};
}

const char* kUsageColumns[] = {"jobs", "gpu_hours", "cpu_hours", "gb_hours", "mean_wait_s", "mean_jct_s"};

}  // namespace

absl::Status CheckUsageKey(const std::string& by) {
  if (by == "user" || by == "tenant") return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("--by: ", service::QuoteForMessage(by), " is not user or tenant"));
}

std::vector<UsageRow> SumUsage(const std::vector<v1::Job>& jobs, const std::string& by) {
  std::map<std::string, UsageRow> by_key;
  UsageRow total;
  total.key = "total";
  for (const v1::Job& j : jobs) {
    std::string key = by == "tenant" ? j.spec().tenant() : j.owner();
    if (key.empty()) key = "-";
    UsageRow& row = by_key[key];
    row.key = key;
    AddToRow(row, j);
    AddToRow(total, j);
  }
  std::vector<UsageRow> rows;
  for (auto& [key, row] : by_key) rows.push_back(std::move(row));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const UsageRow& a, const UsageRow& b) { return a.gpu_hours > b.gpu_hours; });
  rows.push_back(std::move(total));
  return rows;
}

std::string UsageTable(const std::vector<UsageRow>& rows, const std::string& by) {
  std::vector<std::vector<std::string>> table = {
      {by == "tenant" ? "TENANT" : "USER", "JOBS", "GPU-H", "CPU-H", "GB-H", "MEAN WAIT", "MEAN JCT"}};
  for (const UsageRow& r : rows) {
    table.push_back({r.key, absl::StrCat(r.jobs), absl::StrFormat("%.2f", r.gpu_hours),
                     absl::StrFormat("%.2f", r.cpu_hours), absl::StrFormat("%.1f", r.gb_hours),
                     r.launched > 0 ? Duration(static_cast<int64_t>(r.MeanWaitS() * 1000)) : "-",
                     r.ended > 0 ? Duration(static_cast<int64_t>(r.MeanJctS() * 1000)) : "-"});
  }
  return Table(table);
}

std::string UsageCsv(const std::vector<UsageRow>& rows, const std::string& by) {
  std::string out = absl::StrCat(by, ",", absl::StrJoin(std::begin(kUsageColumns), std::end(kUsageColumns), ","), "\n");
  for (const UsageRow& r : rows) {
    // Names are printable text; one with a comma or quote is quoted.
    std::string key = r.key;
    if (key.find_first_of(",\"") != std::string::npos) {
      std::string quoted = "\"";
      for (char c : key) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
      key = quoted + "\"";
    }
    absl::StrAppend(&out, key, ",", absl::StrJoin(UsageCells(r), ","), "\n");
  }
  return out;
}

std::string UsageJson(const std::vector<UsageRow>& rows, const std::string& by) {
  std::vector<std::string> objects;
  for (const UsageRow& r : rows) {
    const std::vector<std::string> cells = UsageCells(r);
    std::vector<std::string> fields = {absl::StrCat("\"", by, "\": ", JsonQuote(r.key))};
    for (size_t i = 0; i < cells.size(); ++i) {
      fields.push_back(absl::StrCat("\"", kUsageColumns[i], "\": ", cells[i].empty() ? "null" : cells[i]));
    }
    objects.push_back(absl::StrCat("  {", absl::StrJoin(fields, ", "), "}"));
  }
  return absl::StrCat("[\n", absl::StrJoin(objects, ",\n"), "\n]\n");
}

}  // namespace synergy::cli
