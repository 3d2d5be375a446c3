// Reconnecting across a daemon restart, for the commands that follow a task over time.
#pragma once

#include <optional>
#include <string>

#include "cli/client.h"
#include "core/model/clock.h"
#include "core/model/status.h"

namespace tq {

/// How long `wait`, `logs -f` and `events -f` keep trying to reach a restarting daemon.
constexpr MonoMs kReconnectWindowMs = 60000;

/// How long a command waits before asking again after tqd said its store failed for a while.
constexpr int kStoreRetryMs = 500;

/// The retries of a command that follows tasks over time: across a restart of tqd (its socket
/// gone: kUnavailable) and a store that fails in a way trying again may help (a transient
/// fault: a restarting PostgreSQL), for at most kReconnectWindowMs from the first failure in a
/// row.
class Retries {
 public:
  /// Whether to try again after `st` failed; after a store's fault, once kStoreRetryMs passed.
  bool After(const Status& st);
  /// A call went through: the next failure begins a new window.
  void Succeeded() { since_.reset(); }

 private:
  RealClock clock_;
  std::optional<MonoMs> since_;  ///< when the failures in a row began
};

/// Connects to `socket`, retrying every 200 ms until `give_up` (monotonic); the last error
/// when the daemon did not come back in time.
Result<Client> ConnectUntil(const std::string& socket, MonoMs give_up);

/// Sleeps for `ms` milliseconds.
void SleepMs(int ms);

}  // namespace tq
