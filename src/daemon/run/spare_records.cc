#include "daemon/run/spare_records.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tq {

SpareRecords::SpareRecords(std::string dir) : dir_(std::move(dir)) {
  DIR* d = opendir(dir_.c_str());
  if (d == nullptr) return;
  for (struct dirent* e; (e = readdir(d)) != nullptr;) {
    if (e->d_name[0] == '.') continue;
    if (spares_.size() < kMaxSpares) {
      spares_.push_back(e->d_name);
      next_ = std::max<uint64_t>(next_, std::strtoull(e->d_name, nullptr, 10) + 1);
    } else {
      unlinkat(dirfd(d), e->d_name, 0);
    }
  }
  closedir(d);
}

void SpareRecords::Keep(const std::string& record) {
  if (spares_.size() >= kMaxSpares) {
    unlink(record.c_str());
    return;
  }
  const std::string name = std::to_string(next_++);
  if (rename(record.c_str(), (dir_ + "/" + name).c_str()) == 0) spares_.push_back(name);
}

std::optional<int> SpareRecords::TakeAs(const std::string& path) {
  while (!spares_.empty()) {
    const std::string spare = dir_ + "/" + spares_.back();
    spares_.pop_back();
    // Blanked and locked before it takes the new name: a daemon killed at any step leaves
    // either a spare or a blank record, never an earlier attempt's record under this one's.
    // Blanked (a NUL at its start, where readers stop), not truncated: freeing the file's block
    // waits for the device on a file system mounted with `discard`, most of a start's time.
    const int fd = open(spare.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    const bool held = fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0;
    if (!held && pwrite(fd, "", 1, 0) == 1 && rename(spare.c_str(), path.c_str()) == 0) return fd;
    if (fd >= 0) close(fd);
    if (!held) unlink(spare.c_str());  // unusable; one held by someone is left to them
  }
  return std::nullopt;
}

}  // namespace tq
