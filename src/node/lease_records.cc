#include "node/lease_records.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "node/errno_status.h"
#include "spdlog/spdlog.h"

namespace synergy::node {

LeaseRecords::LeaseRecords(std::string state_dir, std::string node)
    : dir_(state_dir.empty() ? "" : state_dir + "/running"), node_(std::move(node)) {}

absl::Status LeaseRecords::Open() {
  if (dir_.empty()) return absl::OkStatus();
  const std::string parent = dir_.substr(0, dir_.size() - std::string("/running").size());
  for (const std::string& d : {parent, dir_}) {
    if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) {
      return ErrnoStatus(errno, absl::StrCat("state_dir: mkdir ", d));
    }
  }
  return absl::OkStatus();
}

std::string LeaseRecords::FileOf(const std::string& job_id, int64_t epoch) const {
  return absl::StrCat(dir_, "/", node_, ".", job_id, ".", epoch);
}

void LeaseRecords::Keep(const StartedProcess& p) {
  if (dir_.empty()) return;
  const std::string file = FileOf(p.job_id, p.epoch);
  const std::string tmp = file + ".tmp";
  const std::string text =
      absl::StrCat(p.job_id, " ", p.epoch, " ", p.pid, " ", p.start_ticks, " ", p.owner, "\n");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  if (fd >= 0) ::close(fd);
  ok = ok && ::rename(tmp.c_str(), file.c_str()) == 0;
  if (!ok) {
    spdlog::warn("{} lease {}: cannot record its process in {}: {} (a restart of this node would not find it)",
                 p.job_id, p.epoch, dir_, ErrnoText(saved != 0 ? saved : errno));
    ::unlink(tmp.c_str());
  }
}

void LeaseRecords::Forget(const std::string& job_id, int64_t epoch) {
  if (dir_.empty()) return;
  const std::string file = FileOf(job_id, epoch);
  if (::unlink(file.c_str()) != 0 && errno != ENOENT) {
    spdlog::warn("{} lease {}: cannot remove {}: {}", job_id, epoch, file, ErrnoText(errno));
  }
}

std::vector<StartedProcess> LeaseRecords::Load() const {
  std::vector<StartedProcess> out;
  if (dir_.empty()) return out;
  DIR* dir = ::opendir(dir_.c_str());
  if (dir == nullptr) return out;
  const std::string prefix = node_ + ".";
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (absl::StartsWith(name, prefix)) names.push_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());  // readdir's order is the filesystem's
  for (const std::string& name : names) {
    const std::string file = dir_ + "/" + name;
    if (absl::EndsWith(name, ".tmp")) {
      ::unlink(file.c_str());  // a write that did not finish
      continue;
    }
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    StartedProcess p;
    int32_t pid = 0, owner = 0;
    if (f.size() != 5 || !absl::SimpleAtoi(f[1], &p.epoch) || !absl::SimpleAtoi(f[2], &pid) || pid <= 1 ||
        !absl::SimpleAtoi(f[3], &p.start_ticks) || !absl::SimpleAtoi(f[4], &owner) ||
        name != absl::StrCat(prefix, f[0], ".", f[1])) {
      spdlog::warn("state_dir: {} is not a process record: removed", file);
      ::unlink(file.c_str());
      continue;
    }
    p.job_id = f[0];
    p.pid = pid;
    p.owner = owner;
    out.push_back(std::move(p));
  }
  return out;
}

std::set<pid_t> LeaseRecords::Owners() const {
  std::set<pid_t> owners;
  if (dir_.empty()) return owners;
  std::ifstream in(dir_ + "/../owners");
  for (long pid = 0; in >> pid;) {
    if (pid > 1 && pid < (1l << 30)) owners.insert(static_cast<pid_t>(pid));
  }
  return owners;
}

void LeaseRecords::KeepOwners(const std::set<pid_t>& live, pid_t self) {
  if (dir_.empty()) return;
  const std::string file = dir_ + "/../owners";
  std::string text;
  for (pid_t p : live) absl::StrAppend(&text, p, "\n");
  if (!live.count(self)) absl::StrAppend(&text, self, "\n");
  const std::string tmp = file + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  const bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) ::close(fd);
  if (!ok || ::rename(tmp.c_str(), file.c_str()) != 0) {
    spdlog::warn("state_dir: cannot write {}: {} (a restart of this node would not sweep its cgroups)", file,
                 ErrnoText(errno));
  }
}

uint64_t ProcessStartTicks(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat;
  if (!std::getline(in, stat)) return 0;
  // The command name (field 2) is in parentheses and may hold spaces and
  // parentheses itself: fields are counted after the last ')'.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  // Fields 3 (state) to 21 precede the start time (22). A zombie has ended.
  for (int i = 3; i <= 21; ++i) {
    if (!(rest >> field)) return 0;
    if (i == 3 && (field == "Z" || field == "X")) return 0;
  }
  uint64_t ticks = 0;
  if (!(rest >> ticks)) return 0;
  return ticks;
}

bool IsSynergyNode(pid_t pid) {
  if (pid <= 0) return false;
  std::ifstream in(absl::StrCat("/proc/", pid, "/comm"));
  std::string comm;
  return std::getline(in, comm) && comm == "synergy-node";
}

}  // namespace synergy::node
