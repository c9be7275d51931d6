#include "sim/import/import_account.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "synergy/json_text.h"

namespace synergy::sim {
namespace {

template <typename V, typename F>
std::string JsonObject(const std::map<std::string, V>& m, F value) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : m) parts.push_back(absl::StrCat(JsonQuote(k), ": ", value(v)));
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::string TableJson(const TableAccount& t) {
  int64_t dropped = 0;
  for (const auto& [reason, n] : t.dropped) dropped += n;
  return absl::StrCat("{\"path\": ", JsonQuote(t.path), ", \"lines\": ", t.lines,
                      ", \"header_lines\": ", t.header_lines, ", \"kept\": ", t.kept, ", \"dropped\": ", dropped,
                      ", \"dropped_by_reason\": ", JsonObject(t.dropped, [](int64_t n) { return absl::StrCat(n); }),
                      "}");
}

}  // namespace

std::string ImportJson(const ImportAccount& a) {
  std::string out = "{\n";
  absl::StrAppend(&out, "  \"format\": ", JsonQuote(a.format), ",\n");
  absl::StrAppend(&out, "  \"jobs\": ", TableJson(a.jobs), ",\n");
  if (!a.nodes.path.empty()) absl::StrAppend(&out, "  \"nodes\": ", TableJson(a.nodes), ",\n");
  if (!a.times.path.empty()) {
    absl::StrAppend(&out, "  \"times\": ", TableJson(a.times), ",\n");
    absl::StrAppend(&out, "  \"times_borrowed\": ", a.times_borrowed, ",\n");
  }
  absl::StrAppend(&out, "  \"gpu_shares_rounded_up\": ", a.gpu_shares_rounded_up, ",\n");
  absl::StrAppend(&out, "  \"failed_kept\": ", a.failed_kept, ",\n");
  absl::StrAppend(&out, "  \"time_origin_s\": ", absl::StrFormat("%.17g", a.time_origin_s), ",\n");
  absl::StrAppend(&out, "  \"model_rule\": ", JsonQuote(a.model_rule), ",\n");
  absl::StrAppend(&out, "  \"seed\": ", a.seed, ",\n");
  absl::StrAppend(&out, "  \"split_percent\": [", absl::StrJoin(a.split_percent, ", "), "],\n");
  absl::StrAppend(&out, "  \"jobs_by_model\": ", JsonObject(a.jobs_by_model, [](int64_t n) { return absl::StrCat(n); }),
                  ",\n");
  absl::StrAppend(&out, "  \"gpu_models\": ",
                  JsonObject(a.gpu_models_seen, [](const std::string& t) { return JsonQuote(t); }), ",\n");
  absl::StrAppend(&out, "  \"gpu_model_table\": ", JsonQuote(a.gpu_model_table), ",\n");
  absl::StrAppend(&out, "  \"cluster\": ", JsonQuote(a.cluster), "\n");
  out += "}\n";
  return out;
}

}  // namespace synergy::sim
