// A datagram socket standing in for systemd's notification socket (NOTIFY_SOCKET): what tqd
// tells the service manager, as systemd would receive it.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace tqtest {

// A datagram socket standing in for systemd's notification socket: collects what tqd sends.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof addr.sun_path);
    std::memcpy(addr.sun_path, path.c_str(), path.size());
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~NotifySocket() { close(fd_); }

  // Reads datagrams until one satisfies `pred` (returned) or the wait times out ("").
  std::string WaitFor(const std::function<bool(const std::string&)>& pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) continue;
      std::string msg(buf, static_cast<size_t>(n));
      seen_.push_back(msg);
      if (pred(msg)) return msg;
    }
    return "";
  }
  std::string WaitExact(const std::string& want) {
    return WaitFor([&](const std::string& m) { return m == want; });
  }
  // Reads datagrams for `ms` milliseconds: how many of them were `want`.
  int Count(const std::string& want, int ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    int count = 0;
    for (auto now = std::chrono::steady_clock::now(); now < deadline;
         now = std::chrono::steady_clock::now()) {
      pollfd p{fd_, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
      if (poll(&p, 1, static_cast<int>(left.count()) + 1) <= 0) continue;
      char buf[4096];
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) continue;
      seen_.emplace_back(buf, static_cast<size_t>(n));
      count += seen_.back() == want;
    }
    return count;
  }
  // Every datagram read so far, in order.
  const std::vector<std::string>& seen() const { return seen_; }

 private:
  std::string path_;
  int fd_ = -1;
  std::vector<std::string> seen_;
};

}  // namespace tqtest
