#pragma once
// Durations as people write them in configs and job specs: "90s", "30m",
// "2h", "7d" (a whole number and a unit).
#include <cstdint>
#include <optional>
#include <string>

namespace synergy::service {

// Seconds, from 1 to `max_s`; nullopt for anything else (no unit, a unit
// other than s, m, h, d, zero, a fraction, too long).
std::optional<int64_t> ParseDurationSeconds(const std::string& text, int64_t max_s);

// The shortest of those forms that is exact: 7200 -> "2h", 90 -> "90s".
std::string FormatDurationSeconds(int64_t seconds);

}  // namespace synergy::service
