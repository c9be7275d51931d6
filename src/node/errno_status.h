#pragma once
// A failed system call as text and as a Status, for the node's own calls
// (cgroups, process launching).
#include <string>

#include "absl/status/status.h"

namespace synergy::node {

// strerror's text for `error_number` (thread-safe).
std::string ErrnoText(int error_number);
// `what: <text>`, with the absl code errno maps to (ENOENT: NOT_FOUND, ...).
absl::Status ErrnoStatus(int error_number, const std::string& what);

}  // namespace synergy::node
