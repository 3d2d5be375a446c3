// The daemon's view of a shim's status record (format: daemon/shim/shim_record.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/status.h"

namespace tq {

/// One status record as the shim last wrote it. While `finished` is false only the shim and
/// task identity (shim_pid, pid, pid_start_time, started_ms) mean anything.
struct ShimRecord {
  int version = 0;                         ///< the record format version read
  bool finished = false;                   ///< the task is over and the fields below are final
  int shim_pid = 0;                        ///< the shim's pid
  int pid = 0;                             ///< the task's pid (= its process group), 0 before fork
  unsigned long long pid_start_time = 0;   ///< /proc/PID/stat field 22, to recognise pid reuse
  int64_t started_ms = 0;                  ///< wall-clock ms at fork, 0 before
  int64_t ended_ms = 0;                    ///< wall-clock ms at the end, 0 before
  int exit_code = -1;                      ///< exit status; -1 unless the task exited
  int signal = 0;                          ///< terminating signal; 0 unless killed
  int spawn_errno = 0;                     ///< why the task could not start; 0 if it did
  int64_t user_cpu_us = 0;                 ///< the task's user CPU (wait4 rusage)
  int64_t system_cpu_us = 0;               ///< the task's system CPU (wait4 rusage)
  int64_t max_rss_kb = 0;                  ///< the task's peak RSS in KiB (ru_maxrss)
  std::string boot_id;                     ///< the boot the shim ran in ("" in version 1)
  unsigned long long shim_start_time = 0;  ///< the shim's /proc stat field 22 (0 in version 1)
  std::string spawn_step;  ///< the step that failed when spawn_errno is set ("" before version 3)
  unsigned long long memory_peak = 0;  ///< the task cgroup's peak memory, bytes (0: unknown)
  int64_t cut_at[2] = {-1, -1};        ///< stdout's, stderr's: where a failed write cut it; -1: not
  int cut_errno[2] = {0, 0};           ///< ... and its errno (before version 5: never cut)
};

/// Parses the text of a record, which ends at its first NUL (the rest is what a spare file held
/// before). Accepts the current version (5) and every one before it;
/// refuses other versions, a wrong magic line, a missing or malformed key of its version;
/// ignores unknown keys. Errors are kInternal.
Result<ShimRecord> ParseShimRecord(std::string_view text);

/// Reads and parses the record at `path` (no lock taken; safe while the shim runs).
/// Fails with a message naming the path on I/O or parse errors, including an empty file
/// (a shim that has not yet written its first record).
Result<ShimRecord> ReadShimRecord(const std::string& path);

/// True when the record at `path` is absent or holds nothing yet: empty, or blanked (its first
/// byte NUL) as a spare taken for a new attempt is. False when it cannot be read.
bool ShimRecordBlank(const std::string& path);

/// True if some process holds the flock on `path`, i.e. its shim is alive. Probes with
/// LOCK_EX|LOCK_NB on a fresh descriptor and releases at once; false if the file is absent.
bool ShimRecordLocked(const std::string& path);

}  // namespace tq
