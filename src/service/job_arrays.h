#pragma once
// Job arrays at the edges (Slurm's --array): the index list a spec asks
// for, and the names an array's jobs go by. One submission of an array of
// N indices becomes N jobs with consecutive ids; the first one's id is the
// array's ("j-000100"), and a job of it is also "j-000100_3" (index 3) or,
// as synergyctl accepts it, "j-000100[3]".
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace synergy::service {

struct ArraySpec {
  std::vector<int> indices;  // ascending, no duplicates, at least one
  int max_running = 0;       // "%N": at most N hold a lease at once; 0 = no cap
};

// "0-99", "1,3,5-7", "0-20:2" (every second), each with an optional "%10".
// Errors say what part is wrong: at most kMaxArrayJobs indices, each in
// 0..kMaxArrayIndex, a cap of at least 1.
absl::StatusOr<ArraySpec> ParseArraySpec(absl::string_view text);

// Jobs a submission with this array spec makes: its indices, or 1 for
// none ("") or one that does not parse (refused later, with the reason).
int JobsOfArray(absl::string_view array);

// At most how many of the array's jobs hold a lease at once (the "%N" of
// `array`, read alone: rounds ask it of every array job); 0 = no cap.
int ArrayCap(absl::string_view array);

// "j-000100_3" or "j-000100[3]" -> {"j-000100", 3}; nullopt for any other
// text (a plain id included).
std::optional<std::pair<std::string, int>> SplitArrayJobName(absl::string_view name);

// {"j-000100", 3} -> "j-000100_3": how tables show an array's job (shell
// safe: brackets would be a glob).
std::string ArrayJobName(absl::string_view array_id, int index);

// "j-000100[3]" -> "j-000100_3"; any other text as it is. synergyctl sends
// this form (a job id holds only letters, digits and . _ -).
std::string CanonicalJobName(absl::string_view name);

}  // namespace synergy::service
