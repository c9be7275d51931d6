#include "sim/progress.h"

#include <unistd.h>

#include <cstdio>

namespace synergy::sim {

bool ProgressWanted(const std::optional<bool>& flag) {
  if (flag) return *flag;
  return isatty(STDERR_FILENO) == 1;
}

ProgressLine::ProgressLine(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), last_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { Clear(); }

void ProgressLine::Clear() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

void ProgressLine::Update(const SimProgress& p) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  drawn_ = true;
  std::fprintf(stderr, "\r\033[K%s: t=%.1f h, %lld/%lld measured jobs done, %d queued",
               label_.c_str(), p.now_s / 3600, static_cast<long long>(p.finished),
               static_cast<long long>(p.measured), p.queued);
  std::fflush(stderr);
}

}  // namespace synergy::sim
