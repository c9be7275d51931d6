#include "cpu_time_limit.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "synergy/cpu_quota.h"

namespace synergy::agent {

CpuTimeLimit CpuTimeLimit::FromEnvironment() {
  const char* file = std::getenv("SYNERGY_CPU_LIMIT_FILE");
  const char* period = std::getenv("SYNERGY_CPU_PERIOD_US");
  if (file == nullptr || *file == '\0' || period == nullptr) return {};
  return CpuTimeLimit(file, std::atol(period));
}

std::string CpuTimeLimit::Set(double cores) const {
  if (!available()) return "no CPU-time limit was delegated";
  const int64_t quota = CpuQuotaUs(cores, period_us_);
  const bool v2 = file_.size() >= 7 && file_.compare(file_.size() - 7, 7, "cpu.max") == 0;
  std::ofstream out(file_);
  if (out) out << quota;
  if (out && v2) out << " " << period_us_;
  if (out) out.flush();
  if (!out) return file_ + ": cannot write the quota " + std::to_string(quota) + ": " + std::strerror(errno);
  return "";
}

}  // namespace synergy::agent
