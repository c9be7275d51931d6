#pragma once
// Times as RFC 3339 in UTC with milliseconds, "2026-12-04T21:22:23.456Z":
// how logs stamp their lines and synergyctl writes and reads times.
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace synergy::service {

std::string FormatRfc3339Utc(int64_t unix_ms);

// "2026-12-04T21:22:23Z", with optional fractional seconds, and "Z" or a
// "+hh:mm" / "-hh:mm" offset; errors name `what` and the text.
absl::StatusOr<int64_t> ParseRfc3339(const std::string& text, const std::string& what);

}  // namespace synergy::service
