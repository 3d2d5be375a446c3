#include "daemon/users/spool.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/jobs/job_file.h"
#include "core/model/quote.h"
#include "daemon/host/log.h"
#include "daemon/host/private_files.h"
#include "daemon/users/accounts.h"

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

// Spool::Bind of the file `path` of `user`, open as `fd`.
Result<SpoolBinding> BindOpen(int fd, const std::string& path, const std::string& user) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return Failed("stat", path);
  auto account = OwnerNamed(user);
  if (!account.ok()) return account.status();
  SpoolBinding binding;
  binding.state = SpoolBinding::State::kStale;
  const std::string file = path + " belongs to uid " + std::to_string(st.st_uid);
  if (!account->has_value()) {
    binding.why = file + ", and there is no account " + Quote(user) + " now";
    return binding;
  }
  const Owner& owner = **account;
  if (st.st_uid == 0 && owner.uid != 0 && geteuid() == 0) {
    if (fchown(fd, owner.uid, owner.gid) != 0) return Failed("chown", path);
    LogInfo("jobs: {} belonged to root: given to {} (uid {}), whose job file it is", path,
            owner.name, owner.uid);
    st.st_uid = owner.uid;
  }
  if (st.st_uid != owner.uid) {
    binding.why = file + ", but the account " + Quote(user) + " is uid " +
                  std::to_string(owner.uid) + " now (an earlier account of that name wrote it)";
    return binding;
  }
  binding.state = SpoolBinding::State::kBound;
  return binding;
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
  return MakePrivateDir(dir_);
}

Status Spool::Write(const std::string& user, const std::string& text) const {
  const std::string path = PathOf(user);
  // The system daemon gives the file to its user; a user daemon keeps only its own user's file
  // (the checks of the file refuse any other), which it owns already.
  std::optional<Owner> owner;
  if (geteuid() == 0) {
    auto found = OwnerNamed(user);
    if (!found.ok()) return found.status();
    if (!found->has_value()) return Status::NotFound("there is no account " + Quote(user));
    owner = **found;
  }
  const std::string tmp = path + ".new";  // not *.toml: never read as a job file
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Failed("create", tmp);
  const bool written = (!owner || fchown(fd, owner->uid, owner->gid) == 0) &&
                       fchmod(fd, 0600) == 0 && WriteAll(fd, text);
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

Result<SpoolBinding> Spool::Bind(const std::string& user) const {
  const std::string path = PathOf(user);
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return SpoolBinding{};
  if (fd < 0) return Failed("open", path);
  auto binding = BindOpen(fd, path, user);
  close(fd);
  return binding;
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
