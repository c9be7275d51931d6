#include "slurm/output_folders.h"

#include "slurm/owned_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace synergy::slurm {
namespace {

// A descriptor, closed when it goes.
absl::Status Refuse(const std::string& path, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat("slurm output folder ", path, ": ", why));
}

// `name` in the folder open at `parent` (its path `path` for messages),
// made if missing, as a folder of who's, 0700; `out` opened on it.
absl::Status OwnedFolder(int parent, const std::string& name, const std::string& path, const JobIdentity& who,
                         OwnedFd& out) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    return Refuse(path, "not one path component");
  }
  if (::mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) {
    return Refuse(path, absl::StrCat("cannot make it: ", std::strerror(errno)));
  }
  out.fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (out.fd < 0) {
    return Refuse(path, errno == ELOOP || errno == ENOTDIR ? "is a link or not a folder: not followed"
                                                           : absl::StrCat("cannot open it: ", std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(out.fd, &st) != 0) return Refuse(path, absl::StrCat("cannot read it: ", std::strerror(errno)));
  if (static_cast<int64_t>(st.st_uid) != who.uid) {
    // Ours (just made, or made before the account was known): given to the
    // account. Anyone else's is not taken.
    if (st.st_uid != ::geteuid()) {
      return Refuse(path, absl::StrCat("belongs to uid ", st.st_uid, ", not the job's account (uid ", who.uid, ")"));
    }
    if (::fchown(out.fd, static_cast<uid_t>(who.uid), static_cast<gid_t>(who.gid)) != 0) {
      return Refuse(path, absl::StrCat("cannot give it to uid ", who.uid, ": ", std::strerror(errno)));
    }
  }
  if ((st.st_mode & 07777) != 0700 && ::fchmod(out.fd, 0700) != 0) {
    return Refuse(path, absl::StrCat("cannot make it 0700: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status MakeOutputFolders(const std::string& log_dir, const JobIdentity& who, const std::string& node) {
  OwnedFd root;
  root.fd = ::open(log_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root.fd < 0) return Refuse(log_dir, absl::StrCat("cannot open it: ", std::strerror(errno)));
  OwnedFd account;
  const std::string account_path = absl::StrCat(log_dir, "/", who.folder);
  if (absl::Status st = OwnedFolder(root.fd, who.folder, account_path, who, account); !st.ok()) return st;
  OwnedFd node_folder;
  return OwnedFolder(account.fd, node, absl::StrCat(account_path, "/", node), who, node_folder);
}

}  // namespace synergy::slurm
