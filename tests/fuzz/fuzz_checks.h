#pragma once
// What every fuzz target asserts besides "no crash, no sanitizer report":
// a refused input gives an error that names its source and echoes nothing
// a terminal would act on (values are quoted and escaped at the edge).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace synergy::fuzz {

[[noreturn]] inline void Fail(absl::string_view what, absl::string_view detail) {
  std::fprintf(stderr, "fuzz check failed: %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Longest error a reader may return: a path, a field, a 64-character value
// quoted and a list of known names.
inline constexpr size_t kMaxMessageBytes = 4096;

// `status` is an InvalidArgument error starting with `prefix` (the source
// name, or a field path for the RPC validators), no longer than
// kMaxMessageBytes, without C0 controls or DEL.
inline void CheckRefusal(const absl::Status& status, absl::string_view prefix) {
  const std::string message(status.message());
  if (status.code() != absl::StatusCode::kInvalidArgument) Fail("not InvalidArgument", message);
  if (!absl::StartsWith(message, prefix)) Fail("message does not name the source", message);
  if (message.size() > kMaxMessageBytes) Fail("message too long", message.substr(0, 256));
  for (char c : message) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) Fail("control character in message", message);
  }
}

}  // namespace synergy::fuzz
