// A cgroup v2 directory made for one test, standing in for the subtree systemd delegates to tqd
// (Delegate=yes): created under the cgroup2 mount, removed with everything left in it.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace tqtest {

/// DIR = <cgroup2 mount>/tq-test-PID-N, with the memory, cpu and pids controllers enabled for
/// its children where the hierarchy has them.
class TestCgroup {
 public:
  TestCgroup() {
    const std::string mount = Mount();
    if (mount.empty() || geteuid() != 0) return;
    static std::atomic<int> counter{0};
    const std::string dir =
        mount + "/tq-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    if (mkdir(dir.c_str(), 0755) != 0) return;
    dir_ = dir;
    std::istringstream offered(Read(dir_ + "/cgroup.controllers"));
    for (std::string c; offered >> c;)
      if (c == "memory" || c == "cpu" || c == "pids")
        std::ofstream(dir_ + "/cgroup.subtree_control") << "+" << c;
  }
  ~TestCgroup() {
    if (dir_.empty()) return;
    for (int i = 0; i < 500 && !RemoveAll(dir_); i++) {  // processes may still be leaving
      std::ofstream(dir_ + "/cgroup.kill") << "1";
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  TestCgroup(const TestCgroup&) = delete;
  TestCgroup& operator=(const TestCgroup&) = delete;

  /// The directory; "" when this machine has no writable cgroup v2 hierarchy (not root, no
  /// cgroup2 mount): the test then skips.
  const std::string& dir() const { return dir_; }
  /// Whether its children get `controller`.
  bool Has(const std::string& controller) const {
    std::istringstream enabled(Read(dir_ + "/cgroup.subtree_control"));
    for (std::string c; enabled >> c;)
      if (c == controller) return true;
    return false;
  }

  /// The whole text of a cgroup file ("" when unreadable).
  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }

 private:
  // Where the cgroup v2 hierarchy is mounted, from /proc/self/mountinfo; "" when it is not.
  static std::string Mount() {
    std::ifstream in("/proc/self/mountinfo");
    for (std::string line; std::getline(in, line);) {
      const size_t dash = line.find(" - cgroup2 ");
      if (dash == std::string::npos) continue;
      std::istringstream fields(line.substr(0, dash));
      std::string id, parent, dev, root, mount_point;
      if (fields >> id >> parent >> dev >> root >> mount_point && root == "/") return mount_point;
    }
    return "";
  }
  // Removes `dir` and the cgroups under it, deepest first; false while any is still busy.
  static bool RemoveAll(const std::string& dir) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
      if (e.is_directory(ec) && !RemoveAll(e.path().string())) return false;
    return rmdir(dir.c_str()) == 0 || errno == ENOENT;
  }

  std::string dir_;
};

}  // namespace tqtest
