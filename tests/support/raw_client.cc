#include "support/raw_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <doctest/doctest.h>

namespace tqtest {

EffectiveUid::EffectiveUid(uid_t uid) {
  REQUIRE(setresuid(static_cast<uid_t>(-1), uid, static_cast<uid_t>(-1)) == 0);
}

EffectiveUid::~EffectiveUid() {
  setresuid(static_cast<uid_t>(-1), 0, static_cast<uid_t>(-1));
}

RawClient::RawClient(const std::string& socket_path) {
  fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(fd_ >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(socket_path.size() < sizeof addr.sun_path);
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  REQUIRE_MESSAGE(connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0,
                  "connect " << socket_path << ": " << strerror(errno));
}

RawClient::~RawClient() {
  if (fd_ >= 0) close(fd_);
}

bool RawClient::SendBytes(std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool RawClient::SendFrame(std::string_view payload) {
  return SendBytes(LengthPrefix(static_cast<uint32_t>(payload.size())) + std::string(payload));
}

ssize_t RawClient::TrySend(std::string_view bytes) {
  const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
  return n;
}

std::optional<nlohmann::json> RawClient::ReadFrame(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int>(timeout_s * 1000));
  for (;;) {
    if (buffer_.size() >= 4) {
      const auto* p = reinterpret_cast<const unsigned char*>(buffer_.data());
      const size_t len = (size_t{p[0]} << 24) | (size_t{p[1]} << 16) | (size_t{p[2]} << 8) | p[3];
      if (buffer_.size() >= 4 + len) {
        std::string payload = buffer_.substr(4, len);
        buffer_.erase(0, 4 + len);
        auto j = nlohmann::json::parse(payload, nullptr, false);
        REQUIRE_MESSAGE(!j.is_discarded(), "tqd sent a frame that is not JSON: " << payload);
        return j;
      }
    }
    if (eof_) return std::nullopt;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd pfd{fd_, POLLIN, 0};
    const int r = poll(&pfd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      continue;
    }
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

bool RawClient::WaitClosed(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int>(timeout_s * 1000));
  while (!eof_) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if (!ReadFrame(0.05)) continue;
  }
  return true;
}

int TryConnect(const std::string& socket_path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(socket_path.size() < sizeof addr.sun_path);
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string LengthPrefix(uint32_t n) {
  std::string out(4, '\0');
  out[0] = static_cast<char>(n >> 24);
  out[1] = static_cast<char>(n >> 16);
  out[2] = static_cast<char>(n >> 8);
  out[3] = static_cast<char>(n);
  return out;
}

}  // namespace tqtest
