#include "service/job_arrays.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "service/escape.h"
#include "service/request_limits.h"

namespace synergy::service {
namespace {

// Digits only (no sign, no spaces), within 0..highest.
std::optional<int> ParseBounded(absl::string_view text, int highest) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  }
  int value = 0;
  if (!absl::SimpleAtoi(text, &value) || value > highest) return std::nullopt;
  return value;
}

absl::Status Refuse(absl::string_view whole, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("array ", QuoteForMessage(whole), ": ", why));
}

// One comma-separated part: "7", "0-99" or "0-20:2", appended to `out`.
absl::Status AddPart(absl::string_view whole, absl::string_view part, std::vector<int>& out) {
  int step = 1;
  if (size_t colon = part.find(':'); colon != absl::string_view::npos) {
    std::optional<int> s = ParseBounded(part.substr(colon + 1), kMaxArrayIndex);
    if (!s || *s == 0) return Refuse(whole, absl::StrCat("step in '", part, "' is not a whole number from 1"));
    step = *s;
    part = part.substr(0, colon);
  }
  absl::string_view first_text = part, last_text = part;
  if (size_t dash = part.find('-'); dash != absl::string_view::npos) {
    first_text = part.substr(0, dash);
    last_text = part.substr(dash + 1);
  }
  std::optional<int> first = ParseBounded(first_text, kMaxArrayIndex);
  std::optional<int> last = ParseBounded(last_text, kMaxArrayIndex);
  if (!first || !last) {
    return Refuse(whole, absl::StrCat("'", part, "' is not an index or a range of indices in 0..", kMaxArrayIndex));
  }
  if (*last < *first) return Refuse(whole, absl::StrCat("range '", part, "' ends before it starts"));
  for (int64_t i = *first; i <= *last; i += step) {
    if (out.size() >= static_cast<size_t>(kMaxArrayJobs)) {
      return Refuse(whole, absl::StrCat("more than ", kMaxArrayJobs, " indices"));
    }
    out.push_back(static_cast<int>(i));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ArraySpec> ParseArraySpec(absl::string_view text) {
  if (text.size() > kMaxArraySpecBytes) {
    return absl::InvalidArgumentError(absl::StrCat("array: longer than ", kMaxArraySpecBytes, " bytes"));
  }
  ArraySpec spec;
  absl::string_view list = text;
  if (size_t percent = text.find('%'); percent != absl::string_view::npos) {
    std::optional<int> cap = ParseBounded(text.substr(percent + 1), kMaxArrayJobs);
    if (!cap || *cap == 0) {
      return Refuse(text, absl::StrCat("the cap after '%' is not a whole number from 1 to ", kMaxArrayJobs));
    }
    spec.max_running = *cap;
    list = text.substr(0, percent);
  }
  if (list.empty()) return Refuse(text, "no indices (e.g. 0-99, 1,3,5-7 or 0-20:2, with %10 to cap)");
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    if (absl::Status st = AddPart(text, part, spec.indices); !st.ok()) return st;
  }
  std::sort(spec.indices.begin(), spec.indices.end());
  spec.indices.erase(std::unique(spec.indices.begin(), spec.indices.end()), spec.indices.end());
  return spec;
}

int JobsOfArray(absl::string_view array) {
  if (array.empty()) return 1;
  auto spec = ParseArraySpec(array);
  return spec.ok() ? static_cast<int>(spec->indices.size()) : 1;
}

int ArrayCap(absl::string_view array) {
  const size_t percent = array.find('%');
  if (percent == absl::string_view::npos) return 0;
  return ParseBounded(array.substr(percent + 1), kMaxArrayJobs).value_or(0);
}

std::optional<std::pair<std::string, int>> SplitArrayJobName(absl::string_view name) {
  absl::string_view index_text;
  absl::string_view array_id;
  if (!name.empty() && name.back() == ']') {
    const size_t open = name.rfind('[');
    if (open == absl::string_view::npos) return std::nullopt;
    array_id = name.substr(0, open);
    index_text = name.substr(open + 1, name.size() - open - 2);
  } else {
    const size_t underscore = name.rfind('_');
    if (underscore == absl::string_view::npos) return std::nullopt;
    array_id = name.substr(0, underscore);
    index_text = name.substr(underscore + 1);
  }
  std::optional<int> index = ParseBounded(index_text, kMaxArrayIndex);
  if (!index || array_id.empty()) return std::nullopt;
  return std::make_pair(std::string(array_id), *index);
}

std::string ArrayJobName(absl::string_view array_id, int index) { return absl::StrCat(array_id, "_", index); }

std::string CanonicalJobName(absl::string_view name) {
  if (name.empty() || name.back() != ']') return std::string(name);
  auto split = SplitArrayJobName(name);
  return split ? ArrayJobName(split->first, split->second) : std::string(name);
}

}  // namespace synergy::service
