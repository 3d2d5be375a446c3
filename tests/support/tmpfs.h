// A small tmpfs mounted for a test's lifetime: a disk that fills up on purpose. Mounting needs
// root; callers skip the test elsewhere.
#pragma once

#include <doctest/doctest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace tqtest {

/// A tmpfs of `size` (mount's notation: "8m") mounted over `dir` while it lives, mode 0700;
/// detached lazily at the end, as tqd may still hold it.
class Tmpfs {
 public:
  Tmpfs(const std::string& dir, const std::string& size) : dir_(dir) {
    const std::string options = "size=" + size + ",mode=0700";
    REQUIRE_MESSAGE(mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) == 0,
                    "mount tmpfs on " << dir << ": " << strerror(errno));
  }
  ~Tmpfs() { umount2(dir_.c_str(), MNT_DETACH); }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;

 private:
  std::string dir_;
};

}  // namespace tqtest
