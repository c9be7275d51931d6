#include "node/cgroups.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "node/errno_status.h"
#include "spdlog/spdlog.h"
#include "synergy/cpu_quota.h"

namespace synergy::node {
namespace {

constexpr char kSubtree[] = "synergy";
constexpr int kBusyRetries = 20;

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

absl::StatusOr<std::string> ReadTrimmed(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("read ", path));
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int saved = errno;
      ::close(fd);
      return ErrnoStatus(saved, absl::StrCat("read ", path));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return std::string(absl::StripAsciiWhitespace(text));
}

// Control files take one write(2) per value; O_CREAT only matters for the
// regular files of a test's fake tree (cgroupfs refuses to create files).
absl::Status WriteFile(const std::string& path, const std::string& value) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus(errno, absl::StrCat("write ", path));
  ssize_t n;
  do {
    n = ::write(fd, value.data(), value.size());
  } while (n < 0 && errno == EINTR);
  int saved = errno;
  ::close(fd);
  if (n < 0) return ErrnoStatus(saved, absl::StrCat("write '", value, "' to ", path));
  if (static_cast<size_t>(n) != value.size()) {
    return absl::InternalError(absl::StrCat("write '", value, "' to ", path, ": short write"));
  }
  return absl::OkStatus();
}

absl::Status MakeDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0755) == 0) return absl::OkStatus();
  int saved = errno;
  struct stat st;
  if (saved == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return absl::OkStatus();
  }
  return ErrnoStatus(saved, absl::StrCat("mkdir ", path));
}

// The synergy/ directory may be left from an earlier (root) run, so mkdir
// succeeding proves nothing; job groups are created inside it.
absl::Status MakeWritableDir(const std::string& path) {
  absl::Status status = MakeDir(path);
  if (!status.ok()) return status;
  if (::access(path.c_str(), W_OK) != 0) return ErrnoStatus(errno, absl::StrCat("write to ", path));
  return absl::OkStatus();
}

// <hierarchy mount><path of the agent's cgroup in it>.
std::string JoinCgroupPath(const std::string& mount, const std::string& cgroup_path) {
  if (cgroup_path.empty() || cgroup_path == "/") return mount;
  if (cgroup_path.front() == '/') return mount + cgroup_path;
  return absl::StrCat(mount, "/", cgroup_path);
}

// The agent's place in each hierarchy, from /proc/self/cgroup lines
// "<id>:<controllers>:<path>" ("0::<path>" is the v2 tree).
struct SelfCgroups {
  std::string v2 = "/";
  std::map<std::string, std::string> v1;  // controller -> path

  std::string V1Path(const std::string& controller) const {
    auto it = v1.find(controller);
    return it == v1.end() ? "/" : it->second;
  }
};

SelfCgroups ReadSelfCgroups(const std::string& file) {
  SelfCgroups self;
  absl::StatusOr<std::string> text = ReadTrimmed(file);
  if (!text.ok()) {
    spdlog::warn("cgroups: {}; assuming the agent is in the root cgroup",
                 std::string(text.status().message()));
    return self;
  }
  for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
    std::vector<std::string> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() != 3) continue;
    if (fields[0] == "0" && fields[1].empty()) {
      self.v2 = fields[2];
      continue;
    }
    for (absl::string_view controller : absl::StrSplit(fields[1], ',')) {
      self.v1[std::string(controller)] = fields[2];
    }
  }
  return self;
}

std::string FindV2Mount(const std::string& v2_root) {
  if (Exists(v2_root + "/cgroup.controllers")) return v2_root;
  if (Exists(v2_root + "/unified/cgroup.controllers")) return v2_root + "/unified";
  return "";
}

// On success returns the prepared synergy/ directory; else "" and *why.
std::string TryV2(const std::string& controller, const std::string& v2_root,
                  const std::string& mount, const SelfCgroups& self, std::string* why) {
  if (mount.empty()) {
    *why = absl::StrCat("no cgroup2 tree at ", v2_root, " or ", v2_root, "/unified");
    return "";
  }
  const std::string parent = JoinCgroupPath(mount, self.v2);
  absl::StatusOr<std::string> offered = ReadTrimmed(parent + "/cgroup.controllers");
  if (!offered.ok()) {
    *why = std::string(offered.status().message());
    return "";
  }
  std::vector<std::string> names = absl::StrSplit(*offered, ' ', absl::SkipEmpty());
  if (std::find(names.begin(), names.end(), controller) == names.end()) {
    *why = absl::StrCat("v2 ", parent, " does not offer ", controller,
                        " (cgroup.controllers: \"", *offered, "\")");
    return "";
  }
  const std::string base = absl::StrCat(parent, "/", kSubtree);
  const std::string enable = "+" + controller;
  absl::Status status = WriteFile(parent + "/cgroup.subtree_control", enable);
  if (status.ok()) status = MakeWritableDir(base);
  if (status.ok()) status = WriteFile(base + "/cgroup.subtree_control", enable);
  if (!status.ok()) {
    *why = absl::StrCat("v2: ", status.message());
    return "";
  }
  return base;
}

// A v1 cpuset starts with empty cpus and mems, and an empty cpuset accepts no
// tasks; synergy/ takes its parent's so job groups can narrow from there.
absl::Status InheritCpuset(const std::string& parent, const std::string& base) {
  for (const char* file : {"cpuset.cpus", "cpuset.mems"}) {
    absl::StatusOr<std::string> current = ReadTrimmed(absl::StrCat(base, "/", file));
    if (current.ok() && !current->empty()) continue;
    absl::StatusOr<std::string> inherited = ReadTrimmed(absl::StrCat(parent, "/", file));
    if (!inherited.ok()) return inherited.status();
    absl::Status status = WriteFile(absl::StrCat(base, "/", file), *inherited);
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

std::string TryV1(const std::string& controller, const std::string& v1_root,
                  const SelfCgroups& self, std::string* why) {
  const std::string mount = absl::StrCat(v1_root, "/", controller);
  const char* marker = controller == "cpuset"   ? "cpuset.cpus"
                       : controller == "memory" ? "memory.limit_in_bytes"
                                                : "cpu.cfs_quota_us";
  if (!Exists(absl::StrCat(mount, "/", marker))) {
    *why = absl::StrCat("no v1 ", controller, " hierarchy at ", mount);
    return "";
  }
  const std::string parent = JoinCgroupPath(mount, self.V1Path(controller));
  const std::string base = absl::StrCat(parent, "/", kSubtree);
  absl::Status status = MakeWritableDir(base);
  if (!status.ok()) {
    *why = absl::StrCat(mount, " not writable: ", status.message());
    return "";
  }
  if (controller == "cpuset") status = InheritCpuset(parent, base);
  if (!status.ok()) {
    *why = absl::StrCat("v1: ", status.message());
    return "";
  }
  return base;
}

bool ValidGroupName(const std::string& group) {
  return !group.empty() && group != "." && group != ".." &&
         group.find_first_of(std::string("/\n\0", 3)) == std::string::npos;
}

}  // namespace

Cgroups Cgroups::Detect(const std::string& v1_root, const std::string& v2_root,
                        const std::string& self_cgroup_file, bool cpu_bandwidth) {
  const SelfCgroups self = ReadSelfCgroups(self_cgroup_file);
  const std::string v2_mount = FindV2Mount(v2_root);
  Cgroups cgroups;
  struct Wanted {
    const char* name;
    Controller* slot;
    const char* consequence;
  };
  const Wanted wanted[] = {
      {"cpuset", &cgroups.cpuset_, "CPU pinning is by affinity only, which a job can undo"},
      {"memory", &cgroups.memory_, "memory limits not enforced"},
      {"cpu", &cgroups.cpu_, "CPU slots (cpu_slots) are not enforced: jobs share the cores freely"},
  };
  for (const Wanted& w : wanted) {
    if (w.slot == &cgroups.cpu_ && !cpu_bandwidth) continue;
    std::string why_v2, why_v1;
    std::string base = TryV2(w.name, v2_root, v2_mount, self, &why_v2);
    if (!base.empty()) {
      *w.slot = Controller{Version::kV2, base};
      continue;
    }
    base = TryV1(w.name, v1_root, self, &why_v1);
    if (!base.empty()) {
      spdlog::debug("cgroup {}: not v2 ({}); using v1", w.name, why_v2);
      *w.slot = Controller{Version::kV1, base};
      continue;
    }
    spdlog::warn("cgroup {}: {}; {}; {}", w.name, why_v2, why_v1, w.consequence);
  }
  return cgroups;
}

std::string Cgroups::Describe() const {
  if (!cpuset() && !memory() && !cpu()) return "none";
  auto describe = [](const Controller& c) -> std::string {
    switch (c.version) {
      case Version::kV1: return "v1 " + c.base;
      case Version::kV2: return "v2 " + c.base;
      case Version::kNone: break;
    }
    return "none";
  };
  std::string out = absl::StrCat("cpuset: ", describe(cpuset_), ", memory: ", describe(memory_));
  if (cpu()) absl::StrAppend(&out, ", cpu: ", describe(cpu_));
  return out;
}

absl::Status Cgroups::PlaceCpuset(const std::string& dir, const std::vector<int>& cpu_ids) {
  absl::Status status = WriteFile(dir + "/cpuset.cpus", service::FormatIdList(cpu_ids));
  if (!status.ok() || cpuset_.version != Version::kV1) return status;
  absl::StatusOr<std::string> mems = ReadTrimmed(cpuset_.base + "/cpuset.mems");
  if (!mems.ok()) return mems.status();
  return WriteFile(dir + "/cpuset.mems", *mems);
}

absl::Status Cgroups::PlaceMemory(const std::string& dir, int64_t mem_bytes) {
  const char* file = memory_.version == Version::kV2 ? "/memory.max" : "/memory.limit_in_bytes";
  return WriteFile(dir + file, absl::StrCat(mem_bytes));
}

std::string Cgroups::CpuLimitFile(const std::string& group) const {
  if (cpu_.version == Version::kNone) return "";
  return absl::StrCat(cpu_.base, "/", group, cpu_.version == Version::kV2 ? "/cpu.max" : "/cpu.cfs_quota_us");
}

absl::Status Cgroups::PlaceCpu(const std::string& dir, double cpu_cores) {
  const int64_t quota = CpuQuotaUs(cpu_cores, kCpuPeriodUs);
  if (cpu_.version == Version::kV2) return WriteFile(dir + "/cpu.max", absl::StrCat(quota, " ", kCpuPeriodUs));
  absl::Status status = WriteFile(dir + "/cpu.cfs_period_us", absl::StrCat(kCpuPeriodUs));
  if (status.ok()) status = WriteFile(dir + "/cpu.cfs_quota_us", absl::StrCat(quota));
  return status;
}

absl::Status Cgroups::Update(const std::string& group, const std::vector<int>& cpu_ids, int64_t mem_bytes,
                             double cpu_cores, bool memory_grows) {
  if (!ValidGroupName(group)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cgroup name '", group, "' is not a single path component"));
  }
  std::vector<std::string> failures;
  auto note = [&](const absl::Status& st) {
    if (!st.ok()) failures.emplace_back(st.message());
  };
  auto write_memory = [&] {
    if (memory() && mem_bytes > 0) note(PlaceMemory(absl::StrCat(memory_.base, "/", group), mem_bytes));
  };
  if (memory_grows) write_memory();
  if (cpuset() && !cpu_ids.empty()) note(PlaceCpuset(absl::StrCat(cpuset_.base, "/", group), cpu_ids));
  if (cpu() && cpu_cores > 0) note(PlaceCpu(absl::StrCat(cpu_.base, "/", group), cpu_cores));
  if (!memory_grows) write_memory();
  if (failures.empty()) return absl::OkStatus();
  return absl::InternalError(absl::StrJoin(failures, "; "));
}

absl::Status Cgroups::Place(pid_t pid, const std::string& group,
                            const std::vector<int>& cpu_ids, int64_t mem_bytes, double cpu_cores) {
  if (!ValidGroupName(group)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cgroup name '", group, "' is not a single path component"));
  }
  std::vector<absl::Status> failures;
  std::vector<std::string> ready;  // group directories whose limits are written
  auto prepare = [&](const Controller& c, auto write_limits) {
    const std::string dir = absl::StrCat(c.base, "/", group);
    absl::Status status = MakeDir(dir);
    if (status.ok()) status = write_limits(dir);
    if (!status.ok()) {
      failures.push_back(status);
    } else if (std::find(ready.begin(), ready.end(), dir) == ready.end()) {
      ready.push_back(dir);  // v2 controllers share one directory
    }
  };
  if (cpuset() && !cpu_ids.empty()) {
    prepare(cpuset_, [&](const std::string& dir) { return PlaceCpuset(dir, cpu_ids); });
  }
  if (memory() && mem_bytes > 0) {
    prepare(memory_, [&](const std::string& dir) { return PlaceMemory(dir, mem_bytes); });
  }
  if (cpu() && cpu_cores > 0) {
    prepare(cpu_, [&](const std::string& dir) { return PlaceCpu(dir, cpu_cores); });
  } else if (cpu_cores > 0) {
    failures.push_back(absl::FailedPreconditionError(
        absl::StrCat("no cpu cgroup: the limit of ", cpu_cores, " cores is not enforced")));
  }
  for (const std::string& dir : ready) {
    absl::Status status = WriteFile(dir + "/cgroup.procs", absl::StrCat(pid));
    if (!status.ok()) failures.push_back(status);
  }
  if (failures.empty()) return absl::OkStatus();
  std::vector<std::string> messages;
  for (const absl::Status& s : failures) messages.emplace_back(s.message());
  return absl::Status(failures.front().code(), absl::StrJoin(messages, "; "));
}

std::vector<std::string> Cgroups::GroupsStartingWith(const std::string& prefix) const {
  std::set<std::string> found;
  for (const Controller* c : {&cpuset_, &memory_, &cpu_}) {
    if (c->version == Version::kNone) continue;
    DIR* dir = ::opendir(c->base.c_str());
    if (dir == nullptr) continue;
    while (const dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (e->d_type == DT_DIR && absl::StartsWith(name, prefix) && ValidGroupName(name)) found.insert(name);
    }
    ::closedir(dir);
  }
  return std::vector<std::string>(found.begin(), found.end());
}

void Cgroups::Remove(const std::string& group) {
  if (!ValidGroupName(group)) return;
  std::vector<std::string> bases;
  for (const Controller* c : {&cpuset_, &memory_, &cpu_}) {
    if (c->version == Version::kNone) continue;
    if (std::find(bases.begin(), bases.end(), c->base) == bases.end()) bases.push_back(c->base);
  }
  for (const std::string& base : bases) {
    const std::string dir = absl::StrCat(base, "/", group);
    // Whatever is still in the group left the job's process group (setsid,
    // a double fork): it must not outlive the lease, holding the GPUs and
    // CPUs the scheduler hands to someone else.
    int killed = 0;
    std::ifstream procs(dir + "/cgroup.procs");
    for (pid_t pid; procs >> pid;) {
      if (pid > 0 && ::kill(pid, SIGKILL) == 0) ++killed;
    }
    if (killed > 0) spdlog::warn("cgroup {}: killed {} process(es) left behind by the job", dir, killed);
    int error_number = 0;
    // A SIGKILLed straggler may take a moment to leave the group.
    for (int attempt = 0; attempt < (killed > 0 ? 50 * kBusyRetries : kBusyRetries); ++attempt) {
      error_number = ::rmdir(dir.c_str()) == 0 ? 0 : errno;
      if (error_number != EBUSY) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (error_number != 0 && error_number != ENOENT) {
      spdlog::warn("cgroup: rmdir {}: {}", dir, ErrnoText(error_number));
    }
  }
}

}  // namespace synergy::node
