#include "daemon/host/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

namespace tq {

namespace {

std::string ModeText(mode_t mode) {
  return fmt::format("{:04o}", mode & 07777);
}

Status Failed(const std::string& what, const std::string& path) {
  return Status(ErrorCode::kConfig, "state",
                "state: cannot " + what + " " + path + ": " + std::strerror(errno));
}

// Refuses `dir` when its mode has any of `bits`; `how` says what they allow, `why` why not. The
// remedy is a chmod taking them, unless others share `dir`: then `own_dir`.
Status RefuseBits(const std::string& what, const std::string& dir, mode_t bits,
                  const std::string& how, const std::string& why, const std::string& own_dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || (st.st_mode & bits) == 0) return Status::Ok();
  const std::string remedy = SharedDir(dir)
                                 ? "make a directory of its own: " + own_dir
                                 : "chmod " + ModeText(st.st_mode & ~bits & 07777) + " " + dir;
  return Status(ErrorCode::kConfig, what,
                what + ": " + dir + " is " + how + " by group or others (mode " +
                    ModeText(st.st_mode) + "): " + why + "; " + remedy);
}

}  // namespace

bool SharedDir(const std::string& dir) {
  // The system's own directories, which other programs and users rely on as they are.
  static const std::set<std::string> kSystem = {
      "/",         "/bin",       "/boot",      "/dev",       "/dev/shm",   "/etc",
      "/home",     "/lib",       "/media",     "/mnt",       "/opt",       "/run",
      "/run/lock", "/sbin",      "/srv",       "/tmp",       "/usr",       "/usr/bin",
      "/usr/lib",  "/usr/local", "/usr/share", "/var",       "/var/cache", "/var/lib",
      "/var/lock", "/var/log",   "/var/run",   "/var/spool", "/var/tmp"};
  std::string path = dir;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  struct stat st {};
  return kSystem.count(path) == 1 || (stat(path.c_str(), &st) == 0 && (st.st_mode & S_ISVTX) != 0);
}

Status RefuseOpenDir(const std::string& what, const std::string& dir, const std::string& own_dir) {
  return RefuseBits(what, dir, S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH, "readable or writable",
                    "it holds tasks' environments, stdin and output, so only its owner may read it",
                    own_dir);
}

Status RefuseWritableDir(const std::string& what, const std::string& dir,
                         const std::string& own_dir) {
  return RefuseBits(what, dir, S_IWGRP | S_IWOTH, "writable",
                    "another user could replace tqd's files in it", own_dir);
}

Status MakePrivateDir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return Failed("create", dir);
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0) return Failed("read", dir);
  if (!S_ISDIR(st.st_mode))
    return Status(ErrorCode::kConfig, "state", "state: " + dir + " is not a directory");
  if ((st.st_mode & 07777) != 0700 && chmod(dir.c_str(), 0700) != 0) return Failed("chmod", dir);
  return Status::Ok();
}

Status MakePrivateFile(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EEXIST) return Failed("create", path);
  if (fd >= 0) {
    const bool ok = fchmod(fd, 0600) == 0;  // whatever the umask
    close(fd);
    if (!ok) return Failed("chmod", path);
    return Status::Ok();
  }
  return NarrowFileMode(path);
}

Status NarrowFileMode(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return errno == ENOENT ? Status::Ok() : Failed("read", path);
  if (!S_ISREG(st.st_mode) || (st.st_mode & (S_IRWXG | S_IRWXO)) == 0) return Status::Ok();
  if (chmod(path.c_str(), st.st_mode & 0700) != 0) return Failed("chmod", path);
  return Status::Ok();
}

Status WritePrivateFile(const std::string& path, const std::string& text,
                        const std::optional<Account>& owner) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::Internal("cannot create " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool owned = !owner || fchown(fd, owner->uid, owner->gid) == 0;
  const std::string why = std::strerror(errno);
  close(fd);
  if (done != text.size() || !owned) return Status::Internal("cannot write " + path + ": " + why);
  return Status::Ok();
}

bool NoRoomIn(const std::string& dir) {
  struct statvfs fs;
  if (statvfs(dir.c_str(), &fs) != 0) {
    const size_t slash = dir.rfind('/');
    if (errno != ENOENT || slash == std::string::npos || slash == 0) return false;
    return NoRoomIn(dir.substr(0, slash));
  }
  // Root may use the blocks kept back for it; others only those available to all.
  const unsigned long long blocks = geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
  const unsigned long long inodes = geteuid() == 0 ? fs.f_ffree : fs.f_favail;
  return blocks * fs.f_frsize < 64 * 1024 || (fs.f_files > 0 && inodes == 0);
}

}  // namespace tq
