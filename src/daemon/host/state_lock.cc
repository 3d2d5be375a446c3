#include "daemon/host/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon/host/log.h"
#include "daemon/host/proc.h"

namespace tq {

namespace {

// True while the pid text the lock file holds names a running process (or cannot be read as a
// pid, which proves nothing).
bool HolderRunning(const std::string& pid) {
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return true;
  return ProcessRunning(std::stoi(pid));
}

}  // namespace

StateLock::~StateLock() {
  if (fd_ >= 0) close(fd_);
}

Status StateLock::Acquire(const std::string& state_dir) {
  const std::string path = state_dir + "/tqd.lock";
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0)
    return Status(ErrorCode::kConfig, "state",
                  "state: cannot open " + path + ": " + strerror(errno));
  // A daemon killed while it was starting a shim leaves a copy of this descriptor (and so the
  // lock) to the half-started child until that child's exec closes it, a few milliseconds
  // later. So while the pid in the file no longer runs, the lock is awaited for a while.
  for (int waited_ms = 0; flock(fd_, LOCK_EX | LOCK_NB) != 0; waited_ms += 10) {
    const bool busy = errno == EWOULDBLOCK;
    char buf[32] = {};
    const ssize_t n = pread(fd_, buf, sizeof buf - 1, 0);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    if (busy && waited_ms < 2000 && !HolderRunning(holder)) {
      if (waited_ms == 0)
        LogWarn("the lock {} is still held though tqd pid {} is gone; waiting for it", path,
                holder);
      usleep(10 * 1000);
      continue;
    }
    close(fd_);
    fd_ = -1;
    return Status(ErrorCode::kUnavailable, "state",
                  "state directory " + state_dir + " is in use by tqd pid " + holder + " (lock " +
                      path + ")");
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) != 0 || pwrite(fd_, pid.data(), pid.size(), 0) < 0)
    return Status::Internal("cannot write " + path + ": " + strerror(errno));
  return Status::Ok();
}

}  // namespace tq
