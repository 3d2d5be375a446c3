// A relay between libpq and the tests' PostgreSQL server that a test can freeze, as a network
// that stops carrying a connection would: the server's sessions behind it live on, idle or
// waiting, and neither side hears of the other (SPEC 12's faults of a lost store).
#pragma once

#include <atomic>
#include <string>
#include <thread>

namespace tq::test {

/// Listens on a Unix socket of its own ("host=DIR port=5432") and relays each connection to
/// the server's socket, on a thread of its own.
class PgProxy {
 public:
  /// Relays to the server listening on Unix socket `server_socket`.
  explicit PgProxy(std::string server_socket);
  ~PgProxy();
  PgProxy(const PgProxy&) = delete;
  PgProxy& operator=(const PgProxy&) = delete;

  /// The directory of its socket: libpq's host, with port 5432.
  const std::string& dir() const { return dir_; }
  /// From its return on, the connections open now carry nothing either way; new ones pass.
  void Freeze();

 private:
  void Relay();

  std::string server_socket_;
  std::string dir_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};       ///< a pipe that wakes the thread: "f" to freeze, "x" to stop
  std::atomic<int> freezes_{0};  ///< Freeze calls
  std::atomic<int> frozen_{0};   ///< Freeze calls the thread has acted on
  std::thread thread_;
};

}  // namespace tq::test
