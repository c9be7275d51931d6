#include "node/job_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "service/request_limits.h"
#include "service/request_validation.h"

namespace synergy::node {
namespace {

std::string StreamPath(const std::string& log_dir, const std::string& job_id, int64_t epoch, bool err) {
  return absl::StrCat(log_dir, "/", job_id, ".", epoch, err ? ".err" : ".out");
}

}  // namespace

v1::LogChunk ReadJobOutput(const std::string& log_dir, const v1::LogRequest& request) {
  v1::LogChunk chunk;
  chunk.set_request_id(request.request_id());
  if (!service::IsNameToken(request.job_id()) || request.epoch() < 0 || request.offset() < 0) {
    chunk.set_error("not a job's lease (job id, epoch or offset out of range)");
    return chunk;
  }
  const std::string name = absl::StrCat(request.job_id(), ".", request.epoch(), request.stderr() ? ".err" : ".out");
  const std::string path = StreamPath(log_dir, request.job_id(), request.epoch(), request.stderr());
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    chunk.set_error(absl::StrCat(name, ": ", errno == ENOENT ? "no such file in log_dir (removed?)"
                                                             : std::strerror(errno)));
    return chunk;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    chunk.set_error(absl::StrCat(name, ": not a regular file"));
    return chunk;
  }
  int64_t offset = request.offset();
  if (offset > st.st_size) {
    offset = 0;
    chunk.set_rotated(true);
  }
  const int64_t limit = request.max_bytes() > 0 ? std::min(request.max_bytes(), service::kMaxLogChunkBytes)
                                                : service::kDefaultLogChunkBytes;
  const int64_t want = std::min<int64_t>(limit, st.st_size - offset);
  std::string data(static_cast<size_t>(std::max<int64_t>(want, 0)), '\0');
  size_t got = 0;
  int read_errno = 0;
  while (got < data.size()) {
    const ssize_t n = ::pread(fd, data.data() + got, data.size() - got, offset + static_cast<int64_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) read_errno = errno;
    if (n <= 0) break;  // an error, or the file shrank (rotated) since fstat
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got == 0 && read_errno != 0) {
    chunk.set_error(absl::StrCat(name, ": cannot read: ", std::strerror(read_errno)));
    return chunk;
  }
  data.resize(got);
  chunk.set_offset(offset);
  chunk.set_data(std::move(data));
  chunk.set_size(st.st_size);
  return chunk;
}

std::vector<std::string> RotateJobOutput(const std::string& log_dir,
                                         const std::vector<std::pair<std::string, int64_t>>& instances,
                                         int64_t max_bytes) {
  std::vector<std::string> rotated;
  if (max_bytes <= 0) return rotated;
  for (const auto& [job, epoch] : instances) {
    for (bool err : {false, true}) {
      const std::string path = StreamPath(log_dir, job, epoch, err);
      // By descriptor, links not followed: the node runs as root, and the
      // files are the job owner's.
      const int in = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
      if (in < 0) continue;
      struct stat st {};
      if (::fstat(in, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < max_bytes) {
        ::close(in);
        continue;
      }
      const std::string copy = path + ".1";
      ::unlink(copy.c_str());
      const int out = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      bool copied = out >= 0;
      char buffer[1 << 16];
      for (off_t at = 0; copied;) {
        const ssize_t n = ::pread(in, buffer, sizeof buffer, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          copied = n == 0;
          break;
        }
        for (ssize_t written = 0; copied && written < n;) {
          const ssize_t w = ::write(out, buffer + written, static_cast<size_t>(n - written));
          if (w < 0 && errno == EINTR) continue;
          copied = w > 0;
          written += std::max<ssize_t>(w, 0);
        }
        at += n;
      }
      // The copy is the job owner's to read, as the file was.
      if (copied) copied = ::fchown(out, st.st_uid, st.st_gid) == 0 || ::geteuid() != 0;
      if (out >= 0) ::close(out);
      if (copied && ::ftruncate(in, 0) == 0) rotated.push_back(path);
      ::close(in);
    }
  }
  return rotated;
}

}  // namespace synergy::node
