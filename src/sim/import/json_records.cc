#include "sim/import/json_records.h"

#include <cstdio>
#include <memory>

#include "absl/strings/str_cat.h"

namespace synergy::sim {
namespace {

struct Closer {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

bool IsSpace(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A scan of the file a character at a time, counting lines.
class Scan {
 public:
  explicit Scan(std::FILE* f) : f_(f) {}
  int Next() {
    const int c = getc_unlocked(f_);
    if (c == '\n') ++line_;
    return c;
  }
  // The next character that is not whitespace, or EOF.
  int NextSolid() {
    int c = Next();
    while (IsSpace(c)) c = Next();
    return c;
  }
  int64_t line() const { return line_; }

 private:
  std::FILE* f_;
  int64_t line_ = 1;
};

// Reads one object from its '{' (already read) to the matching '}'.
absl::Status ReadObject(Scan& scan, std::string& text) {
  text = "{";
  int depth = 1;
  bool in_string = false;
  bool escaped = false;
  while (depth > 0) {
    const int c = scan.Next();
    if (c == EOF) return absl::InvalidArgumentError("the file ends inside a job record");
    if (c == '\0') return absl::InvalidArgumentError("holds a NUL byte");
    if (text.size() == kMaxJsonRecordBytes) {
      return absl::InvalidArgumentError(absl::StrCat("a job record longer than ", kMaxJsonRecordBytes, " bytes"));
    }
    text.push_back(static_cast<char>(c));
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ForEachJsonRecord(const std::string& path,
                               const std::function<absl::Status(const std::string&, int64_t)>& record) {
  std::unique_ptr<std::FILE, Closer> file(std::fopen(path.c_str(), "rb"));
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  Scan scan(file.get());
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", scan.line(), ": ", why));
  };
  if (scan.NextSolid() != '[') return fail("is not a JSON array of job records (no '[' first)");
  std::string text;
  int c = scan.NextSolid();
  if (c != ']') {
    while (true) {
      if (c == EOF) return fail("the array of job records is not closed with ']'");
      if (c != '{') return fail("a job record is not a JSON object");
      const int64_t line = scan.line();
      if (absl::Status st = ReadObject(scan, text); !st.ok()) return fail(st.message());
      if (absl::Status st = record(text, line); !st.ok()) {
        return absl::Status(st.code(), absl::StrCat(path, ":", line, ": ", st.message()));
      }
      c = scan.NextSolid();
      if (c == ']') break;
      if (c == EOF) return fail("the array of job records is not closed with ']'");
      if (c != ',') return fail("expected ',' or ']' after a job record");
      c = scan.NextSolid();
    }
  }
  if (scan.NextSolid() != EOF) return fail("holds more after the array of job records");
  return absl::OkStatus();
}

}  // namespace synergy::sim
