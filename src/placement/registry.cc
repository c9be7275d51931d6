#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mechanisms.h"

namespace synergy {

std::vector<std::string> MechanismNames() { return {"proportional", "greedy", "tune"}; }

absl::StatusOr<std::unique_ptr<Mechanism>> MakeMechanism(std::string_view name) {
  if (name == "proportional") return mechanisms::MakeProportional();
  if (name == "greedy") return mechanisms::MakeGreedy();
  if (name == "tune") return mechanisms::MakeTune();
  return absl::InvalidArgumentError(absl::StrCat(
      "mechanism: '", std::string(name), "' is not one of ", absl::StrJoin(MechanismNames(), ", ")));
}

}  // namespace synergy
