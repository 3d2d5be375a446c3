#include "daemon/spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/jobs/job_file.h"

namespace tq {

namespace {
constexpr const char* kSuffix = ".toml";

Status Failed(const std::string& what, const std::string& path) {
  return Status::Internal("cannot " + what + " " + path + ": " + strerror(errno));
}

// fsync of the directory `dir`, so a rename or unlink in it is durable.
Status SyncDir(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Failed("open", dir);
  const int rc = fsync(fd);
  close(fd);
  return rc == 0 ? Status::Ok() : Failed("fsync", dir);
}

// Writes all of `text` to `fd` and fsyncs it.
bool WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return fsync(fd) == 0;
}
}  // namespace

std::string Spool::UserOf(const std::string& path) const {
  const std::string prefix = dir_ + "/";
  const size_t suffix = std::strlen(kSuffix);
  if (path.size() <= prefix.size() + suffix || path.compare(0, prefix.size(), prefix) != 0 ||
      path.compare(path.size() - suffix, suffix, kSuffix) != 0)
    return "";
  std::string user = path.substr(prefix.size(), path.size() - prefix.size() - suffix);
  return user.find('/') == std::string::npos ? user : "";
}

Status Spool::Prepare() const {
  if (mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) return Failed("create", dir_);
  return Status::Ok();
}

Status Spool::Write(const std::string& user, const std::string& text) const {
  const std::string path = PathOf(user);
  const std::string tmp = path + ".new";  // not *.toml: never read as a job file
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Failed("create", tmp);
  const bool written = WriteAll(fd, text);
  const int saved = errno;
  close(fd);
  if (!written) {
    unlink(tmp.c_str());
    errno = saved;
    return Failed("write", tmp);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const Status st = Failed("rename", tmp);
    unlink(tmp.c_str());
    return st;
  }
  return SyncDir(dir_);
}

Result<std::optional<std::string>> Spool::Read(const std::string& user) const {
  const std::string path = PathOf(user);
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::optional<std::string>();
  if (fd < 0) return Failed("open", path);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const Status st = Failed("read", path);
      close(fd);
      return st;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxJobFileBytes) break;  // it is refused when loaded
  }
  close(fd);
  return std::optional<std::string>(std::move(text));
}

Result<bool> Spool::Remove(const std::string& user) const {
  const std::string path = PathOf(user);
  if (unlink(path.c_str()) != 0) {
    if (errno == ENOENT) return false;
    return Failed("remove", path);
  }
  if (Status st = SyncDir(dir_); !st.ok()) return st;
  return true;
}

}  // namespace tq
