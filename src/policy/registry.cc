#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "policies.h"

namespace synergy {

std::vector<std::string> PolicyNames() { return {"fifo", "srtf", "las", "ftf"}; }

absl::StatusOr<std::unique_ptr<Policy>> MakePolicy(std::string_view name) {
  if (name == "fifo") return policies::MakeFifo();
  if (name == "srtf") return policies::MakeSrtf();
  if (name == "las") return policies::MakeLas();
  if (name == "ftf") return policies::MakeFtf();
  return absl::InvalidArgumentError(absl::StrCat("policy: '", std::string(name), "' is not one of ",
                                                 absl::StrJoin(PolicyNames(), ", ")));
}

}  // namespace synergy
