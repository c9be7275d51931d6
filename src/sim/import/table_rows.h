#pragma once
// The rows of a trace's CSV table, one at a time, checked against the
// columns its format names: the header where the format's files have one,
// and each row's number of fields. Errors are "PATH:LINE: why".
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "sim/import/import_account.h"

namespace synergy::sim {

struct TableShape {
  std::vector<std::string> columns;
  bool header_required = false;
  std::string format;  // named in errors
};

// Calls `row(fields, line)` for every data row of `path`; a status it
// returns that is not OK stops the walk, with PATH:LINE: before its message.
// Counts lines, header lines and blank lines (dropped "blank_line") in
// `account`.
absl::Status ForEachRow(const std::string& path, const TableShape& shape, TableAccount& account,
                        const std::function<absl::Status(const std::vector<absl::string_view>&, int64_t)>& row);

}  // namespace synergy::sim
