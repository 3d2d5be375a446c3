// Facts about processes and this boot from /proc, for recognising a shim after a restart.
#pragma once

#include <optional>
#include <string>

namespace tq {

/// /proc/sys/kernel/random/boot_id without its newline; "" when unreadable.
std::string CurrentBootId();

/// Field 22 of /proc/PID/stat (start time in clock ticks since boot); nullopt when the process
/// is gone or unreadable. Together with the boot it identifies a process across pid reuse.
std::optional<unsigned long long> ProcessStartTime(int pid);

/// True while `pid` runs (exists and is not a zombie).
bool ProcessRunning(int pid);

}  // namespace tq
