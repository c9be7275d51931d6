#include "sim/import/import_fields.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "sim/trace_columns.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

absl::Status Bad(absl::string_view field, absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", QuoteValue(text), ": ", why));
}

// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
// (Howard Hinnant's days_from_civil), so that no time zone or C library
// takes part.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool Digits(absl::string_view text, size_t at, size_t n, int64_t& out) {
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

}  // namespace

absl::StatusOr<double> NumberField(absl::string_view field, absl::string_view text, double min, double max) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v)) {
    return Bad(field, text, "is not a number");
  }
  if (v < min || v > max) return Bad(field, text, absl::StrCat("is not between ", min, " and ", max));
  return v;
}

absl::StatusOr<int64_t> IntegerField(absl::string_view field, absl::string_view text, int64_t min, int64_t max) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    return Bad(field, text, "is not a whole number");
  }
  if (v < min || v > max) return Bad(field, text, absl::StrCat("is not between ", min, " and ", max));
  return v;
}

absl::StatusOr<double> DateTimeField(absl::string_view field, absl::string_view text) {
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  const bool shaped = text.size() == 19 && text[4] == '-' && text[7] == '-' && text[10] == ' ' && text[13] == ':' &&
                      text[16] == ':' && Digits(text, 0, 4, y) && Digits(text, 5, 2, mo) && Digits(text, 8, 2, d) &&
                      Digits(text, 11, 2, h) && Digits(text, 14, 2, mi) && Digits(text, 17, 2, s);
  if (!shaped) return Bad(field, text, "is not a time YYYY-MM-DD HH:MM:SS");
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) {
    return Bad(field, text, "is not a time of the calendar");
  }
  return static_cast<double>(DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s);
}

absl::StatusOr<std::string> NameField(absl::string_view field, absl::string_view text) {
  if (!IsPlainTraceName(std::string_view(text.data(), text.size()))) {
    return Bad(field, text,
               absl::StrCat("is not a name of at most ", kMaxTraceNameBytes,
                            " printable characters without spaces, commas or quotes"));
  }
  return std::string(text);
}

absl::StatusOr<double> RunSeconds(absl::string_view end_field, absl::string_view end_text, double end,
                                  absl::string_view start_what, double start) {
  if (end < start) return Bad(end_field, end_text, absl::StrCat("is before ", start_what));
  return end - start;
}

absl::StatusOr<std::string> MachineGpuModel(absl::string_view field, absl::string_view text, int gpus,
                                            absl::string_view machine) {
  if (gpus == 0) return std::string();
  auto model = NameField(field, text);
  if (!model.ok()) return model.status();
  if (model->empty()) return Bad(field, text, absl::StrCat("a ", machine, " with GPUs names no GPU model"));
  return model;
}

}  // namespace synergy::sim
