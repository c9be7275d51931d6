#include "node/errno_status.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace synergy::node {

std::string ErrnoText(int error_number) {
  char buffer[256];
  // GNU strerror_r: returns a pointer to the text (maybe not into buffer).
  return strerror_r(error_number, buffer, sizeof(buffer));
}

absl::Status ErrnoStatus(int error_number, const std::string& what) {
  return absl::Status(absl::ErrnoToStatusCode(error_number), absl::StrCat(what, ": ", ErrnoText(error_number)));
}

}  // namespace synergy::node
