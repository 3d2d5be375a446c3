// A hand-driven client for the daemon's socket: sends arbitrary bytes and reads frames, so the
// tests can misbehave on purpose (garbage, oversized lengths, never reading).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tqtest {

/// Makes this process act as `uid` (SO_PEERCRED names the effective uid at connect time) until
/// the end of the scope.
struct EffectiveUid {
  explicit EffectiveUid(uid_t uid);
  ~EffectiveUid();
  EffectiveUid(const EffectiveUid&) = delete;
  EffectiveUid& operator=(const EffectiveUid&) = delete;
};

/// One AF_UNIX connection to tqd.
class RawClient {
 public:
  /// Connects to `socket_path`; REQUIREs success.
  explicit RawClient(const std::string& socket_path);
  ~RawClient();
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  /// Writes `bytes` as they are; false once the daemon has closed the connection.
  bool SendBytes(std::string_view bytes);
  /// Writes a 4-byte big-endian length and `payload`.
  bool SendFrame(std::string_view payload);
  /// Tries to write `bytes` without blocking: how many were written, 0 when the socket buffer
  /// is full, -1 once the daemon has closed the connection.
  ssize_t TrySend(std::string_view bytes);
  /// The next frame parsed as JSON; nullopt when the connection closed or nothing came in time.
  std::optional<nlohmann::json> ReadFrame(double timeout_s);
  /// True when the daemon closes the connection within `timeout_s` (frames before that are
  /// skipped).
  bool WaitClosed(double timeout_s);

  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::string buffer_;
  bool eof_ = false;
};

/// Connects a non-blocking socket to `socket_path`: its descriptor (the caller closes it), or -1
/// when the daemon's backlog is full or the connect failed.
int TryConnect(const std::string& socket_path);

/// A 4-byte big-endian length prefix for `n`.
std::string LengthPrefix(uint32_t n);

}  // namespace tqtest
