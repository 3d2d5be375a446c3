// The shims' fork server (`tq-shim --fork-server`, shim_record.h): one small process that makes
// each shim by clone instead of tqd executing tq-shim for each task, so a shim starts without an
// exec, a dynamic loader or the C library's start-up. The shim it makes is tqd's child
// (CLONE_PARENT), watched and reaped as one tqd started itself; a server that is gone or does not
// answer costs a new one, and meanwhile tqd starts the shims itself.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tq {

/// tqd's end of the fork server, started when first needed.
class ForkServer {
 public:
  /// A server of the shim executable open on `shim_fd` (its owner keeps it open).
  explicit ForkServer(int shim_fd) : shim_fd_(shim_fd) {}
  /// Ends the server and reaps it.
  ~ForkServer();
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;

  /// Asks for a shim with `args` (after argv[0]), `status_fd` and `env_fd` (shim_record.h),
  /// starting the server first when there is none; returns the shim's pid, or 0 when none was
  /// made (start it another way). Waits a second at most for a server that does not answer, then
  /// ends it; the shim tells its pid itself, so a server that ends on the way never leaves one
  /// unknown.
  pid_t Make(const std::vector<std::string>& args, int status_fd, int env_fd);

  /// The server's pid, or 0 while there is none.
  pid_t pid() const { return pid_; }

 private:
  /// Starts the server and waits for its first message; false when it could not.
  bool Start();
  /// Ends the server (KILL) and reaps it; the next request starts another.
  void Stop();

  int shim_fd_;
  int sock_ = -1;
  pid_t pid_ = 0;
  long long retry_at_ms_ = 0;  ///< after a failed start, none is tried before (CLOCK_MONOTONIC)
};

}  // namespace tq
