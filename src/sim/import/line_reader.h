#pragma once
// A text file read a line at a time, in memory independent of its size (the
// public traces' tables run to gigabytes), for the trace importers.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace synergy::sim {

// Longer lines are refused: no table of a public trace comes near it, and a
// file without newlines must not be read into memory whole.
inline constexpr size_t kMaxImportLineBytes = 1 << 20;

class LineReader {
 public:
  // "PATH: cannot open file" when it cannot be read.
  static absl::StatusOr<std::unique_ptr<LineReader>> Open(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, without its newline (nor a \r before it); false at the
  // end of the file. "PATH:LINE: line longer than 1048576 bytes" past the
  // bound, "PATH:LINE: holds a NUL byte" for binary input.
  absl::StatusOr<bool> Next(std::string& line);
  int64_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  LineReader(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}
  std::string path_;
  std::FILE* file_;
  int64_t line_number_ = 0;
};

// A CSV line's fields, split at every comma (the public tables quote
// nothing). A quote in a line is refused by the formats' readers as a bad
// value of the field that holds it.
std::vector<absl::string_view> SplitCsvLine(absl::string_view line);

}  // namespace synergy::sim
