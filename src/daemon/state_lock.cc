#include "daemon/state_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace tq {

StateLock::~StateLock() {
  if (fd_ >= 0) close(fd_);
}

Status StateLock::Acquire(const std::string& state_dir) {
  const std::string path = state_dir + "/tqd.lock";
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0)
    return Status(ErrorCode::kConfig, "state",
                  "state: cannot open " + path + ": " + strerror(errno));
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = pread(fd_, buf, sizeof buf - 1, 0);
    std::string holder = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "unknown";
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
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
