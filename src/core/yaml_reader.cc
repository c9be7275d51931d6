#include "synergy/yaml_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "synergy/quote.h"
#include "yaml-cpp/yaml.h"

namespace synergy {
namespace {

// A key as it appears in a field path (or a message of yaml-cpp's): escaped
// and cut short, unquoted.
std::string FieldName(absl::string_view key, size_t max_chars = kQuotedChars) {
  bool cut = false;
  std::string out = EscapeControls(key, max_chars, &cut);
  return cut ? out + "..." : out;
}

std::string JoinField(const std::string& parent, absl::string_view key) {
  return parent.empty() ? FieldName(key) : absl::StrCat(parent, ".", FieldName(key));
}

int LineOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.line >= 0 ? mark.line + 1 : 0;
}

enum class IntParse { kOk, kNotAnInteger, kOutOfRange };

// YAML 1.2 core schema integers: [-+]?[0-9]+, 0x[0-9a-fA-F]+, 0o[0-7]+.
IntParse ParseYamlInt(absl::string_view text, int64_t& out) {
  int base = 10;
  bool negative = false;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    base = text[1] == 'x' ? 16 : 8;
    text.remove_prefix(2);
  } else if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return IntParse::kNotAnInteger;
  uint64_t magnitude = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, magnitude, base);
  if (ptr != end) return IntParse::kNotAnInteger;
  if (ec == std::errc::result_out_of_range) return IntParse::kOutOfRange;
  if (ec != std::errc()) return IntParse::kNotAnInteger;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > (negative ? kMax + 1 : kMax)) return IntParse::kOutOfRange;
  // -(2^63) is the one magnitude whose negation needs care.
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return IntParse::kOk;
}

enum class DoubleParse { kOk, kNotANumber, kNotFinite, kTooSmall };

// Below this (and not 0) a number is a typing mistake or a probe (1e-320,
// a subnormal): no duration, size or share of ours is that small.
constexpr double kSmallestMeaningful = 1e-300;

// YAML 1.2 core schema floats: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?,
// [-+]?.inf and .nan in their three spellings; integers (hex, octal) too.
DoubleParse ParseYamlDouble(absl::string_view text, double& out) {
  static const std::set<absl::string_view> kSpecial = {
      ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
      ".nan", ".NaN", ".NAN"};
  if (kSpecial.count(text)) return DoubleParse::kNotFinite;
  int64_t integer = 0;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    if (ParseYamlInt(text, integer) != IntParse::kOk) return DoubleParse::kNotANumber;
    out = static_cast<double>(integer);
    return DoubleParse::kOk;
  }
  absl::string_view body = text;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) body.remove_prefix(1);
  size_t i = 0, digits = 0;
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return DoubleParse::kNotANumber;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t exponent_digits = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') ++i, ++exponent_digits;
    if (exponent_digits == 0) return DoubleParse::kNotANumber;
  }
  if (i != body.size()) return DoubleParse::kNotANumber;
  // from_chars takes no leading '+'; the sign is put back by hand.
  const char* end = body.data() + body.size();
  double magnitude = 0;
  auto [ptr, ec] = std::from_chars(body.data(), end, magnitude);
  if (ec == std::errc::result_out_of_range) return DoubleParse::kNotFinite;
  if (ec != std::errc() || ptr != end || !std::isfinite(magnitude)) return DoubleParse::kNotANumber;
  if (magnitude != 0 && magnitude < kSmallestMeaningful) return DoubleParse::kTooSmall;
  out = text[0] == '-' ? -magnitude : magnitude;
  return DoubleParse::kOk;
}

std::string Plural(size_t n, absl::string_view one) {
  return absl::StrCat(n, " ", one, n == 1 ? "" : "s");
}

}  // namespace

absl::StatusOr<std::string> ReadTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open file"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": cannot read file"));
  return buffer.str();
}

// ---- YamlValue ------------------------------------------------------------

YamlValue::YamlValue(const YamlValue& other) = default;
YamlValue::YamlValue(YamlValue&& other) = default;
YamlValue& YamlValue::operator=(const YamlValue& other) = default;
YamlValue& YamlValue::operator=(YamlValue&& other) = default;
YamlValue::~YamlValue() = default;

YamlValue::YamlValue(YAML::Node node, std::shared_ptr<const std::string> source, std::string field,
                     int line)
    : node_(std::move(node)), source_(std::move(source)), field_(std::move(field)), line_(line) {}

YamlValue YamlValue::Absent(std::shared_ptr<const std::string> source, std::string field,
                            int line) {
  YamlValue v(YAML::Node(), std::move(source), std::move(field), line);
  v.present_ = false;
  return v;
}

YamlValue YamlValue::Child(YAML::Node node, std::string field) const {
  const int line = LineOf(node);
  return YamlValue(std::move(node), source_, std::move(field), line > 0 ? line : line_);
}

bool YamlValue::IsNull() const { return !present_ || node_.IsNull(); }
bool YamlValue::IsScalar() const { return present_ && node_.IsScalar(); }
bool YamlValue::IsSequence() const { return present_ && node_.IsSequence(); }
bool YamlValue::IsMap() const { return present_ && node_.IsMap(); }

absl::Status YamlValue::Error(absl::string_view why) const {
  const std::string where =
      line_ > 0 ? absl::StrCat(*source_, ":", line_) : std::string(*source_);
  const std::string field = field_.empty() ? "document" : field_;
  if (!present_) return absl::InvalidArgumentError(absl::StrCat(where, ": ", field, ": ", why));
  std::string value;
  if (node_.IsScalar()) value = QuoteValue(node_.Scalar());
  else if (node_.IsSequence()) value = "(a list)";
  else if (node_.IsMap()) value = "(a map)";
  else value = "(null)";
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", field, ": ", value, ": ", why));
}

absl::StatusOr<const std::string*> YamlValue::Scalar(absl::string_view expected) const {
  if (!present_) return Error("missing");
  if (!node_.IsScalar()) return Error(absl::StrCat("is not ", expected));
  return &node_.Scalar();
}

absl::StatusOr<std::string> YamlValue::String(size_t max_bytes) const {
  absl::StatusOr<const std::string*> s = Scalar("a string");
  if (!s.ok()) return s.status();
  // Checked before the copy: an alias can name one long scalar many times.
  if ((*s)->size() > max_bytes) return Error(absl::StrCat("is longer than ", max_bytes, " bytes"));
  return **s;
}

absl::StatusOr<std::string> YamlValue::NonEmptyString(size_t max_bytes) const {
  absl::StatusOr<std::string> s = String(max_bytes);
  if (s.ok() && s->empty()) return Error("is empty");
  return s;
}

absl::StatusOr<bool> YamlValue::Bool() const {
  absl::StatusOr<const std::string*> s = Scalar("true or false");
  if (!s.ok()) return s.status();
  // yaml-cpp's spellings, which the readers accepted before.
  static const std::set<absl::string_view> kTrue = {"y", "Y", "yes", "Yes", "YES", "true", "True",
                                                   "TRUE", "on", "On", "ON"};
  static const std::set<absl::string_view> kFalse = {"n", "N", "no", "No", "NO", "false", "False",
                                                    "FALSE", "off", "Off", "OFF"};
  if (kTrue.count(**s)) return true;
  if (kFalse.count(**s)) return false;
  return Error("is not true or false");
}

absl::StatusOr<int64_t> YamlValue::Int(IntRange range) const {
  absl::StatusOr<const std::string*> s = Scalar("an integer");
  if (!s.ok()) return s.status();
  int64_t v = 0;
  switch (ParseYamlInt(**s, v)) {
    case IntParse::kNotAnInteger: return Error("is not an integer");
    case IntParse::kOutOfRange:
      return Error(absl::StrCat("must be between ", range.min, " and ", range.max));
    case IntParse::kOk: break;
  }
  if (v < range.min || v > range.max) {
    return Error(absl::StrCat("must be between ", range.min, " and ", range.max));
  }
  return v;
}

absl::StatusOr<double> YamlValue::Double(DoubleRange range) const {
  absl::StatusOr<const std::string*> s = Scalar("a number");
  if (!s.ok()) return s.status();
  double v = 0;
  switch (ParseYamlDouble(**s, v)) {
    case DoubleParse::kNotANumber: return Error("is not a number");
    case DoubleParse::kNotFinite: return Error("is not a finite number");
    case DoubleParse::kTooSmall: return Error("is too close to 0 to mean anything (use 0, or a value above 1e-300)");
    case DoubleParse::kOk: break;
  }
  const bool low = range.min_exclusive ? !(v > range.min) : !(v >= range.min);
  if (low || v > range.max) {
    return Error(range.min_exclusive
                     ? absl::StrCat("must be > ", range.min, " and at most ", range.max)
                     : absl::StrCat("must be between ", range.min, " and ", range.max));
  }
  return v;
}

absl::StatusOr<std::vector<YamlValue>> YamlValue::List(size_t min_items, size_t max_items) const {
  if (!present_) return Error("missing");
  if (!node_.IsSequence()) return Error("is not a list");
  const size_t n = node_.size();
  if (n < min_items || n > max_items) {
    const std::string why =
        min_items == max_items ? absl::StrCat("must have ", Plural(min_items, "item"))
        : n < min_items        ? absl::StrCat("must have at least ", Plural(min_items, "item"))
                               : absl::StrCat("must have at most ", Plural(max_items, "item"));
    return Error(absl::StrCat(why, " (has ", n, ")"));
  }
  std::vector<YamlValue> items;
  items.reserve(n);
  size_t i = 0;
  for (const YAML::Node& item : node_) {
    items.push_back(Child(item, absl::StrCat(field_, "[", i++, "]")));
  }
  return items;
}

absl::StatusOr<std::vector<int64_t>> YamlValue::IntList(IntRange range, size_t min_items,
                                                        size_t max_items) const {
  absl::StatusOr<std::vector<YamlValue>> items = List(min_items, max_items);
  if (!items.ok()) return items.status();
  std::vector<int64_t> out;
  for (const YamlValue& item : *items) {
    absl::StatusOr<int64_t> v = item.Int(range);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

absl::StatusOr<std::vector<double>> YamlValue::DoubleList(DoubleRange range, size_t min_items,
                                                          size_t max_items) const {
  absl::StatusOr<std::vector<YamlValue>> items = List(min_items, max_items);
  if (!items.ok()) return items.status();
  std::vector<double> out;
  for (const YamlValue& item : *items) {
    absl::StatusOr<double> v = item.Double(range);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> YamlValue::StringList(size_t min_items, size_t max_items,
                                                               size_t max_total_bytes) const {
  absl::StatusOr<std::vector<YamlValue>> items = List(min_items, max_items);
  if (!items.ok()) return items.status();
  std::vector<std::string> out;
  size_t total = 0;
  for (const YamlValue& item : *items) {
    absl::StatusOr<std::string> v = item.String(max_total_bytes - total);
    if (!v.ok()) {
      return item.IsScalar() ? Error(absl::StrCat("holds more than ", max_total_bytes, " bytes"))
                             : v.status();
    }
    total += v->size();
    out.push_back(*std::move(v));
  }
  return out;
}

absl::StatusOr<std::vector<std::pair<std::string, YamlValue>>> YamlValue::Entries(
    const std::vector<absl::string_view>* known_keys, size_t max_entries) const {
  if (!present_) return Error("missing");
  if (!node_.IsMap()) return Error("is not a map");
  std::vector<std::pair<std::string, YamlValue>> entries;
  std::map<std::string, int, std::less<>> seen_on_line;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) {
      return Child(kv.first, field_).Error("is not a field name (a map's keys are plain strings)");
    }
    const std::string& key = kv.first.Scalar();
    const std::string field = JoinField(field_, key);
    const int key_line = LineOf(kv.first) > 0 ? LineOf(kv.first) : line_;
    if (known_keys != nullptr &&
        std::find(known_keys->begin(), known_keys->end(), key) == known_keys->end()) {
      return Absent(source_, field, key_line)
          .Error(absl::StrCat("unknown field (fields: ", absl::StrJoin(*known_keys, ", "), ")"));
    }
    if (auto it = seen_on_line.find(key); it != seen_on_line.end()) {
      return Absent(source_, field, key_line)
          .Error(absl::StrCat("given twice (first on line ", it->second, ")"));
    }
    if (entries.size() == max_entries) {
      return Error(absl::StrCat("must have at most ", Plural(max_entries, "entry")));
    }
    seen_on_line.emplace(key, key_line);
    YamlValue value = Child(kv.second, field);
    if (LineOf(kv.second) == 0) value.line_ = key_line;
    entries.emplace_back(key, std::move(value));
  }
  return entries;
}

absl::StatusOr<std::map<std::string, std::string>> YamlValue::StringMap(
    size_t max_items, size_t max_total_bytes) const {
  auto entries = Entries(nullptr, max_items);
  if (!entries.ok()) return entries.status();
  std::map<std::string, std::string> out;
  size_t total = 0;
  const auto too_many_bytes = [&] {
    return Error(absl::StrCat("holds more than ", max_total_bytes, " bytes of keys and values"));
  };
  for (const auto& [key, value] : *entries) {
    if (key.size() > max_total_bytes - total) return too_many_bytes();
    total += key.size();
    absl::StatusOr<std::string> v = value.String(max_total_bytes - total);
    if (!v.ok()) return value.IsScalar() ? too_many_bytes() : v.status();
    total += v->size();
    out.emplace(key, *std::move(v));
  }
  return out;
}

absl::StatusOr<YamlMap> YamlValue::Map(std::vector<absl::string_view> known_keys) const {
  auto entries = Entries(&known_keys, known_keys.size());
  if (!entries.ok()) return entries.status();
  YamlMap map(*this);
  map.entries_ = *std::move(entries);
  return map;
}

// ---- YamlMap --------------------------------------------------------------

bool YamlMap::Has(absl::string_view key) const {
  for (const auto& [name, value] : entries_) {
    if (name == key) return true;
  }
  return false;
}

YamlValue YamlMap::Get(absl::string_view key) const {
  for (const auto& [name, value] : entries_) {
    if (name == key) return value;
  }
  return YamlValue::Absent(self_.source_, JoinField(self_.field_, key), self_.line_);
}

absl::Status YamlMap::Read(absl::string_view key, std::string& out, size_t max_bytes) const {
  if (!Has(key)) return absl::OkStatus();
  absl::StatusOr<std::string> v = Get(key).String(max_bytes);
  if (!v.ok()) return v.status();
  out = *std::move(v);
  return absl::OkStatus();
}

absl::Status YamlMap::Read(absl::string_view key, bool& out) const {
  if (!Has(key)) return absl::OkStatus();
  absl::StatusOr<bool> v = Get(key).Bool();
  if (!v.ok()) return v.status();
  out = *v;
  return absl::OkStatus();
}

absl::Status YamlMap::Read(absl::string_view key, int64_t& out, IntRange range) const {
  if (!Has(key)) return absl::OkStatus();
  absl::StatusOr<int64_t> v = Get(key).Int(range);
  if (!v.ok()) return v.status();
  out = *v;
  return absl::OkStatus();
}

absl::Status YamlMap::Read(absl::string_view key, int& out, IntRange range) const {
  range.min = std::max<int64_t>(range.min, std::numeric_limits<int>::min());
  range.max = std::min<int64_t>(range.max, std::numeric_limits<int>::max());
  int64_t wide = out;
  absl::Status st = Read(key, wide, range);
  if (st.ok()) out = static_cast<int>(wide);
  return st;
}

absl::Status YamlMap::Read(absl::string_view key, double& out, DoubleRange range) const {
  if (!Has(key)) return absl::OkStatus();
  absl::StatusOr<double> v = Get(key).Double(range);
  if (!v.ok()) return v.status();
  out = *v;
  return absl::OkStatus();
}

absl::Status YamlMap::Read(absl::string_view key, std::vector<int>& out, IntRange range,
                           size_t max_items) const {
  if (!Has(key)) return absl::OkStatus();
  range.min = std::max<int64_t>(range.min, std::numeric_limits<int>::min());
  range.max = std::min<int64_t>(range.max, std::numeric_limits<int>::max());
  absl::StatusOr<std::vector<int64_t>> v = Get(key).IntList(range, 0, max_items);
  if (!v.ok()) return v.status();
  out.assign(v->begin(), v->end());
  return absl::OkStatus();
}

absl::Status YamlMap::Read(absl::string_view key, std::vector<std::string>& out,
                           size_t max_items, size_t max_total_bytes) const {
  if (!Has(key)) return absl::OkStatus();
  absl::StatusOr<std::vector<std::string>> v = Get(key).StringList(0, max_items, max_total_bytes);
  if (!v.ok()) return v.status();
  out = *std::move(v);
  return absl::OkStatus();
}

// ---- ParseYaml ------------------------------------------------------------

int SecondDocumentLine(absl::string_view text) {
  // Found in the text rather than with YAML::LoadAll, which loops for ever
  // on some malformed input in yaml-cpp 0.7 (the fuzz targets' ",{p").
  // A marker is "---" or "..." at column 0, alone or before a space; at
  // column 0 it cannot be inside a block scalar of a map's value.
  bool content = false;  // the first document has begun
  int marker = 0;        // the line of a marker after it
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const bool is_marker = (absl::StartsWith(line, "---") || absl::StartsWith(line, "...")) &&
                           (line.size() == 3 || line[3] == ' ' || line[3] == '\t');
    absl::string_view rest = is_marker ? line.substr(3) : line;
    rest = absl::StripLeadingAsciiWhitespace(rest);
    const bool blank = rest.empty() || rest[0] == '#' || (!is_marker && line[0] == '%');
    if (is_marker && content && marker == 0) marker = number;
    if (blank) continue;
    if (marker > 0) return marker;
    content = true;
  }
  return 0;
}

absl::StatusOr<YamlValue> ParseYaml(absl::string_view text, const std::string& source) {
  auto name = std::make_shared<const std::string>(source);
  try {
    // One document per file: a second one (after ---) would be silently
    // ignored by a reader of the first, so it is refused, not skipped.
    if (const int second = SecondDocumentLine(text); second > 0) {
      return YamlValue::Absent(name, "", second)
          .Error("a second YAML document (after ---): one document per file");
    }
    YAML::Node root = YAML::Load(std::string(text));
    const int line = LineOf(root);
    return YamlValue(std::move(root), std::move(name), "", line > 0 ? line : 1);
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 1;
    return YamlValue::Absent(name, "", line).Error(absl::StrCat("malformed YAML: ", FieldName(e.msg, 200)));
  } catch (const std::exception& e) {
    // yaml-cpp may also throw the standard library's exceptions (bad_alloc
    // on a document too large to hold).
    return YamlValue::Absent(name, "", 1).Error(absl::StrCat("malformed YAML: ", FieldName(e.what(), 200)));
  }
}

}  // namespace synergy
