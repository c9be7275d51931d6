#pragma once
// A progress line on stderr for long runs, redrawn at most five times a
// second; only when asked or when stderr is a terminal.
#include <chrono>
#include <optional>
#include <string>

#include "sim/simulator.h"

namespace synergy::sim {

class ProgressLine {
 public:
  ProgressLine(std::string label, bool enabled);
  ~ProgressLine();  // clears the line
  void Update(const SimProgress& p);
  // Erases the line now (before a row is printed under it).
  void Clear();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

// --progress / --no-progress, else whether stderr is a terminal.
bool ProgressWanted(const std::optional<bool>& flag);

}  // namespace synergy::sim
