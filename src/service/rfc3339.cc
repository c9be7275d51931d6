#include "service/rfc3339.h"

#include <cctype>
#include <cstdio>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace synergy::service {

namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm), so
// that parsing needs no time zone database and no timegm.
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

std::string FormatRfc3339Utc(int64_t unix_ms) {
  const int64_t floor_s = unix_ms / 1000 - (unix_ms % 1000 < 0 ? 1 : 0);
  const int millis = static_cast<int>(unix_ms - floor_s * 1000);
  const std::time_t secs = static_cast<std::time_t>(floor_s);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                         tm.tm_hour, tm.tm_min, tm.tm_sec, millis);
}

absl::StatusOr<int64_t> ParseRfc3339(const std::string& text, const std::string& what) {
  const auto bad = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": '", text, "' is not a time like 2026-12-04T21:00:00Z or a duration like 2h"));
  };
  int y, mo, d, h, mi, s, n = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 || n != 19) {
    return bad();
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || y < 1970) return bad();
  size_t i = 19;
  int64_t ms = 0;
  if (i < text.size() && text[i] == '.') {
    int digits = 0;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++digits) {
      if (digits < 3) ms = ms * 10 + (text[i] - '0');
    }
    if (digits == 0) return bad();
    for (; digits < 3; ++digits) ms *= 10;
  }
  int64_t offset_min = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i + 6 == text.size() && (text[i] == '+' || text[i] == '-') && text[i + 3] == ':') {
    int oh = 0, om = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59) return bad();
    offset_min = (text[i] == '-' ? -1 : 1) * (oh * 60 + om);
    i += 6;
  } else {
    return bad();
  }
  if (i != text.size()) return bad();
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return ((days * 86400 + h * 3600 + mi * 60 + s) - offset_min * 60) * 1000 + ms;
}

}  // namespace synergy::service
