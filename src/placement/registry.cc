#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "mechanisms.h"

namespace synergy {

std::vector<std::string> MechanismNames() {
  return {"proportional", "greedy", "tune", "tune-graded", "opt", "requested"};
}

absl::StatusOr<std::unique_ptr<Mechanism>> MakeMechanism(std::string_view name,
                                                         const MechanismOptions& options) {
  if (name == "proportional") return mechanisms::MakeProportional();
  if (name == "greedy") return mechanisms::MakeGreedy();
  if (name == "tune") return mechanisms::MakeTune();
  if (name == "tune-graded") return mechanisms::MakeTuneGraded();
  if (name == "opt") return mechanisms::MakeOpt(options);
  if (name == "requested") return mechanisms::MakeRequested();
  return absl::InvalidArgumentError(absl::StrCat(
      "mechanism: '", std::string(name), "' is not one of ", absl::StrJoin(MechanismNames(), ", ")));
}

}  // namespace synergy
