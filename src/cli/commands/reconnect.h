// Reconnecting across a daemon restart, for the commands that follow a task over time.
#pragma once

#include <string>

#include "cli/client.h"
#include "core/model/clock.h"

namespace tq {

/// How long `wait`, `logs -f` and `events -f` keep trying to reach a restarting daemon.
constexpr MonoMs kReconnectWindowMs = 60000;

/// Connects to `socket`, retrying every 200 ms until `give_up` (monotonic); the last error
/// when the daemon did not come back in time.
Result<Client> ConnectUntil(const std::string& socket, MonoMs give_up);

/// Sleeps for `ms` milliseconds.
void SleepMs(int ms);

}  // namespace tq
