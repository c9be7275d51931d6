#include "service/durations.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace synergy::service {

std::optional<int64_t> ParseDurationSeconds(const std::string& text, int64_t max_s) {
  if (text.size() < 2) return std::nullopt;
  const char unit = text.back();
  const int64_t scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 0;
  const std::string number = text.substr(0, text.size() - 1);
  // Digits only: SimpleAtoi would also take "2 " and "+2".
  if (!std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  int64_t n = 0;
  if (scale == 0 || !absl::SimpleAtoi(text.substr(0, text.size() - 1), &n) || n < 1 || n > max_s / scale) {
    return std::nullopt;
  }
  return n * scale;
}

std::string FormatDurationSeconds(int64_t seconds) {
  if (seconds > 0 && seconds % 86400 == 0) return absl::StrCat(seconds / 86400, "d");
  if (seconds > 0 && seconds % 3600 == 0) return absl::StrCat(seconds / 3600, "h");
  if (seconds > 0 && seconds % 60 == 0) return absl::StrCat(seconds / 60, "m");
  return absl::StrCat(seconds, "s");
}

}  // namespace synergy::service
