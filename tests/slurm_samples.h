#pragma once
// A recorded Slurm output of tests/data/slurm (SOURCES.md says where each
// comes from), whole, for the parser's tests and benchmark; "" where the
// file cannot be read. Needs SYNERGY_SOURCE_DIR.
#include <fstream>
#include <sstream>
#include <string>

namespace synergy::slurm {

inline std::string SlurmSample(const std::string& name) {
  std::ifstream in(std::string(SYNERGY_SOURCE_DIR) + "/tests/data/slurm/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace synergy::slurm
