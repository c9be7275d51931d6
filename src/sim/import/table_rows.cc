#include "sim/import/table_rows.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/import/line_reader.h"
#include "synergy/quote.h"

namespace synergy::sim {
namespace {

bool IsHeader(const std::vector<absl::string_view>& fields, const TableShape& shape) {
  if (fields.size() != shape.columns.size()) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i] != shape.columns[i]) return false;
  }
  return true;
}

}  // namespace

absl::Status ForEachRow(const std::string& path, const TableShape& shape, TableAccount& account,
                        const std::function<absl::Status(const std::vector<absl::string_view>&, int64_t)>& row) {
  auto reader = LineReader::Open(path);
  if (!reader.ok()) return reader.status();
  account.path = path;
  std::string line;
  while (true) {
    auto more = (*reader)->Next(line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    const int64_t n = (*reader)->line_number();
    ++account.lines;
    if (line.empty()) {
      ++account.dropped["blank_line"];
      continue;
    }
    const std::vector<absl::string_view> fields = SplitCsvLine(line);
    if (n == 1 && IsHeader(fields, shape)) {
      ++account.header_lines;
      continue;
    }
    if (n == 1 && shape.header_required) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":1: header: ", QuoteValue(line), ": is not ", shape.format,
                                                     "'s (", absl::StrJoin(shape.columns, ","), ")"));
    }
    if (fields.size() != shape.columns.size()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", n, ": ", QuoteValue(line), ": has ", fields.size(),
                                                     " fields, ", shape.format, "'s rows have ", shape.columns.size()));
    }
    if (absl::Status st = row(fields, n); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat(path, ":", n, ": ", st.message()));
    }
  }
  if (shape.header_required && account.header_lines == 0) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": empty: ", shape.format, "'s tables start with a header (",
                                                   absl::StrJoin(shape.columns, ","), ")"));
  }
  return absl::OkStatus();
}

}  // namespace synergy::sim
