#include "sim/import/line_reader.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace synergy::sim {

absl::StatusOr<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  return std::unique_ptr<LineReader>(new LineReader(path, file));
}

LineReader::~LineReader() { std::fclose(file_); }

absl::StatusOr<bool> LineReader::Next(std::string& line) {
  line.clear();
  int c = getc_unlocked(file_);
  if (c == EOF) return false;
  ++line_number_;
  for (; c != EOF && c != '\n'; c = getc_unlocked(file_)) {
    if (c == '\0') return absl::InvalidArgumentError(absl::StrCat(path_, ":", line_number_, ": holds a NUL byte"));
    if (line.size() == kMaxImportLineBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat(path_, ":", line_number_, ": line longer than ", kMaxImportLineBytes, " bytes"));
    }
    line.push_back(static_cast<char>(c));
  }
  if (std::ferror(file_)) return absl::DataLossError(absl::StrCat(path_, ":", line_number_, ": read failed"));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

std::vector<absl::string_view> SplitCsvLine(absl::string_view line) { return absl::StrSplit(line, ','); }

}  // namespace synergy::sim
