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

/// True while `pid` runs the process that started at `start_time` (ProcessStartTime) and is not
/// this process, its group or session leader, or its parent. Start times count clock ticks, so a
/// pid reused within the same tick (tqd itself, started right after its old task's pid was
/// freed) would pass the time check alone; what tqd must never signal is excluded by name.
bool StillRunsProcess(int pid, unsigned long long start_time);

/// pidfd_open(2) of `pid`: -1 with errno when it fails.
int PidfdOpen(int pid);

/// pidfd_send_signal(2) of `sig` to the process of `pidfd`: 0, or -1 with errno.
int PidfdSendSignal(int pidfd, int sig);
/// pidfd_send_signal(2) of `sig` carrying `value` (si_code SI_QUEUE, as sigqueue(3) sends it):
/// 0, or -1 with errno.
int PidfdSendSignalValue(int pidfd, int sig, int value);

}  // namespace tq
