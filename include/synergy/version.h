#pragma once
// The build's version (CMake's project version) and source revision (`git
// describe --always --dirty` when the build was configured, "unknown" out of
// a git checkout): printed by every program's --version and exported as
// synergy_build_info on /metrics.
#include <string>
#include <string_view>

namespace synergy {

extern const char kSynergyVersion[];
extern const char kSynergyRevision[];

// "PROGRAM VERSION (revision REV)", one line.
std::string VersionLine(std::string_view program);

}  // namespace synergy
