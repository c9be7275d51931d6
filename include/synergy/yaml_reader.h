#pragma once
// Typed reads of YAML configuration, so that readers never call yaml-cpp.
//
// The readers of clusters, the model zoo and job specs go through these
// types (synergyd.yaml and synergy-node.yaml are to follow, see below), so
// that
//  - no yaml-cpp exception escapes: malformed documents, non-scalar keys,
//    lists where a number was expected are all error values;
//  - every error has one format, naming the source, the line (1-based), the
//    field path and the refused value:
//        file:line: field: 'value': why
//        x.yaml:4: servers[0].gpus: '-1': must be between 1 and 1024
//    and, where there is no value to show (a missing field, a malformed
//    document), `file:line: field: why`. Values are quoted, escaped and cut
//    at 64 characters (synergy/quote.h), so a hostile file cannot write
//    control characters to a terminal or a megabyte into a log line.
//  - maps refuse non-scalar keys, unknown keys (the message lists the known
//    ones) and keys given twice;
//  - numbers are range-checked at the read: a reader states the bounds a real
//    value lies within, so a size that cannot be real never reaches code that
//    allocates by it;
//  - strings, lists and maps are bounded in bytes and items, checked before
//    anything is copied: with anchors and aliases (`&a`, `*a`) a small file
//    can name one long scalar thousands of times.
//
// Numbers follow the YAML 1.2 core schema: integers are decimal
// ([-+]?[0-9]+), 0x hex or 0o octal (a leading 0 is decimal, not octal);
// doubles are decimal with an optional exponent, or .inf/.nan (refused as
// not finite). Quoted scalars are read the same way as plain ones.
//
// A reader of settings that overlay defaults (synergyd.yaml,
// synergy-node.yaml) converts in a few lines:
//
//   absl::StatusOr<YamlValue> root = ParseYaml(text, source);
//   if (!root.ok()) return root.status();
//   if (root->IsNull()) return c;                         // an empty file
//   absl::StatusOr<YamlMap> m = root->Map({"listen", "round_s", "tokens"});
//   if (!m.ok()) return m.status();
//   absl::Status st;
//   st.Update(m->Read("listen", c.listen));               // left alone if absent
//   st.Update(m->Read("round_s", c.round_s, DoubleRange::Positive(86400)));
//   st.Update(m->Read("cpus", c.cpu_ids, IntRange{0, 4095}, 4096));
//   if (!st.ok()) return st;
//   if (!MakePolicy(c.policy).ok()) return m->Get("policy").Error("is not one of ...");
//
// (Status::Update keeps the first failed read: the first in the order the
// reader asks, which need not be the file's order.)
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "yaml-cpp/node/node.h"

namespace synergy {

// Reads a whole file; "path: cannot open file" when it cannot.
absl::StatusOr<std::string> ReadTextFile(const std::string& path);

// The longest string String() takes unless told otherwise.
inline constexpr size_t kMaxYamlStringBytes = 64 * 1024;

// Closed integer bounds.
struct IntRange {
  int64_t min;
  int64_t max;
};

// Finite double bounds; `min_exclusive` makes the lower bound strict (> 0).
struct DoubleRange {
  double min;
  double max;
  bool min_exclusive = false;
  static DoubleRange Positive(double max) { return {0, max, true}; }     // (0, max]
  static DoubleRange NonNegative(double max) { return {0, max, false}; } // [0, max]
};

class YamlMap;

// One node of a parsed document and where it is: the source name, its field
// path ("servers[2].gpus") and its line. A value may be absent (a key the
// map does not have): then Present() is false and every read fails with
// "file:line: field: missing", the line being the map's.
class YamlValue {
 public:
  // Defined in yaml_reader.cc: YAML::Node's copy lives in yaml-cpp's impl.h,
  // which only that file includes, so copies made inline elsewhere would
  // not link under every compiler.
  YamlValue(const YamlValue& other);
  YamlValue(YamlValue&& other);
  YamlValue& operator=(const YamlValue& other);
  YamlValue& operator=(YamlValue&& other);
  ~YamlValue();

  bool Present() const { return present_; }
  bool IsNull() const;      // absent, empty, ~ or null
  bool IsScalar() const;
  bool IsSequence() const;
  bool IsMap() const;
  const std::string& source() const { return *source_; }
  const std::string& field() const { return field_; }
  int line() const { return line_; }  // 1-based; 0 when unknown

  // "file:line: field: 'value': why" (the value part left out when this is
  // absent; a list or a map shows as (a list) or (a map)).
  absl::Status Error(absl::string_view why) const;

  // A scalar, quoted or plain, of at most `max_bytes`. Null, lists and maps
  // are refused.
  absl::StatusOr<std::string> String(size_t max_bytes = kMaxYamlStringBytes) const;
  // A scalar that is not empty.
  absl::StatusOr<std::string> NonEmptyString(size_t max_bytes = kMaxYamlStringBytes) const;
  // true/false (also yes/no, on/off, y/n in any of YAML's spellings).
  absl::StatusOr<bool> Bool() const;
  absl::StatusOr<int64_t> Int(IntRange range) const;
  absl::StatusOr<double> Double(DoubleRange range) const;

  // The items of a list, each named field[i]. Anything but a list, and a
  // list outside [min_items, max_items], is refused.
  absl::StatusOr<std::vector<YamlValue>> List(size_t min_items, size_t max_items) const;
  absl::StatusOr<std::vector<int64_t>> IntList(IntRange range, size_t min_items,
                                               size_t max_items) const;
  absl::StatusOr<std::vector<double>> DoubleList(DoubleRange range, size_t min_items,
                                                 size_t max_items) const;
  // Strings of `max_total_bytes` together at most.
  absl::StatusOr<std::vector<std::string>> StringList(size_t min_items, size_t max_items,
                                                      size_t max_total_bytes) const;
  // A map of any scalar keys to scalar values (a job's env), keys and values
  // of `max_total_bytes` together at most; keys given twice are refused.
  absl::StatusOr<std::map<std::string, std::string>> StringMap(size_t max_items,
                                                               size_t max_total_bytes) const;
  // A map whose keys must all be among `known_keys` (each at most once).
  absl::StatusOr<YamlMap> Map(std::vector<absl::string_view> known_keys) const;
  // A map keyed by names the file chooses (plain strings, each at most
  // once, at most `max_entries`), in document order; a value's errors name
  // its key as the field's last part.
  absl::StatusOr<std::vector<std::pair<std::string, YamlValue>>> OpenMap(size_t max_entries) const {
    return Entries(nullptr, max_entries);
  }

 private:
  friend class YamlMap;
  friend absl::StatusOr<YamlValue> ParseYaml(absl::string_view, const std::string&);
  YamlValue(YAML::Node node, std::shared_ptr<const std::string> source, std::string field,
            int line);
  static YamlValue Absent(std::shared_ptr<const std::string> source, std::string field,
                          int line);
  YamlValue Child(YAML::Node node, std::string field) const;
  absl::StatusOr<const std::string*> Scalar(absl::string_view expected) const;
  // The map's entries in document order, keys checked (plain, among
  // `known_keys` when given, none twice, at most `max_entries`).
  absl::StatusOr<std::vector<std::pair<std::string, YamlValue>>> Entries(
      const std::vector<absl::string_view>* known_keys, size_t max_entries) const;

  YAML::Node node_;
  std::shared_ptr<const std::string> source_;
  std::string field_;
  int line_ = 0;
  bool present_ = true;
};

// A map whose keys have been checked (plain strings, all known, none twice),
// with its values in document order.
class YamlMap {
 public:
  bool Has(absl::string_view key) const;
  // The value at `key`, named "parent.key"; absent when the map lacks it.
  YamlValue Get(absl::string_view key) const;
  const std::vector<std::pair<std::string, YamlValue>>& entries() const { return entries_; }

  // Overlay reads: when `key` is present, read it into `out`; when absent,
  // leave `out` as it is and return OK.
  absl::Status Read(absl::string_view key, std::string& out,
                    size_t max_bytes = kMaxYamlStringBytes) const;
  absl::Status Read(absl::string_view key, bool& out) const;
  absl::Status Read(absl::string_view key, int& out, IntRange range) const;
  absl::Status Read(absl::string_view key, int64_t& out, IntRange range) const;
  absl::Status Read(absl::string_view key, double& out, DoubleRange range) const;
  absl::Status Read(absl::string_view key, std::vector<int>& out, IntRange range,
                    size_t max_items) const;
  absl::Status Read(absl::string_view key, std::vector<std::string>& out, size_t max_items,
                    size_t max_total_bytes) const;

 private:
  friend class YamlValue;
  explicit YamlMap(YamlValue self) : self_(std::move(self)) {}
  YamlValue self_;
  std::vector<std::pair<std::string, YamlValue>> entries_;
};

// Parses one YAML document named `source` in errors. Catches every yaml-cpp
// exception: "source:line: document: malformed YAML: <yaml-cpp's reason>".
// An empty document is a null value (IsNull()).
absl::StatusOr<YamlValue> ParseYaml(absl::string_view text, const std::string& source);

// The line (from 1) where a second, non-empty YAML document begins in
// `text` (its "---" or "..." marker at column 0), or 0: ParseYaml refuses
// such a text. Markers before any content, and empty documents after it,
// do not count; neither do directives (%YAML) and comments.
int SecondDocumentLine(absl::string_view text);

}  // namespace synergy
