#pragma once
// The elements of a JSON array of records (Philly's cluster_job_log), one at
// a time, in memory independent of the file's size: each element's text is
// cut out by a scan that follows strings and nesting, and handed on whole
// (at most kMaxJsonRecordBytes) to be parsed on its own.
#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"

namespace synergy::sim {

inline constexpr size_t kMaxJsonRecordBytes = 1 << 20;

// Calls `record(text, line)` for each element of the top-level array in
// `path` (`line`: where the element starts); a status it returns that is
// not OK stops the walk, with PATH:LINE: before its message. Errors for a
// file that is not one array of objects, an element past the bound, and
// anything but whitespace after the array.
absl::Status ForEachJsonRecord(const std::string& path,
                               const std::function<absl::Status(const std::string&, int64_t)>& record);

}  // namespace synergy::sim
