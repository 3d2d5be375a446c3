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
  /// `uri`, which reaches the server by its socket's directory, made to reach it through here.
  std::string Through(std::string uri) const;
  /// From its return on, the connections open now carry nothing either way; new ones pass.
  void Freeze() { Ask('f'); }
  /// From its return on, the connections open now carry what the client sends and nothing of
  /// what the server answers.
  void Deafen() { Ask('d'); }
  /// Closes both ends of every connection open now, as a restart of the server does.
  void Cut() { Ask('c'); }
  /// While `refuse`, a new connection is closed as soon as it is made, as by a server that is
  /// not there.
  void Refuse(bool refuse) { refuse_ = refuse; }
  /// While `hang`, a new connection is made and then carries nothing either way, as with a
  /// server that takes connections and never answers them.
  void Hang(bool hang) { hang_ = hang; }

 private:
  /// Has the thread do `what` ('f' freeze, 'd' deafen, 'c' cut, 'x' stop) and waits until it
  /// has.
  void Ask(char what);
  void Relay();

  std::string server_socket_;
  std::string dir_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};     ///< the pipe that carries Ask's commands to the thread
  std::atomic<int> asked_{0};  ///< Ask calls
  std::atomic<int> done_{0};   ///< Ask calls the thread has acted on
  std::atomic<bool> refuse_{false};
  std::atomic<bool> hang_{false};
  std::thread thread_;
};

}  // namespace tq::test
