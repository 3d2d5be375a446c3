// How an attempt ended, as its supervisor reported it, and why the daemon asked it to stop.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model/clock.h"
#include "core/model/output_cut.h"
#include "core/model/task.h"

namespace tq {

/// What the supervisor reported for a finished attempt.
struct AttemptOutcome {
  WallMs ended = 0;
  int pid = 0;       ///< the task's process as the supervisor saw it (0 if never started)
  int shim_pid = 0;  ///< the supervisor, from its record (0 when it left none)
  int exit_code = -1;
  int signal = 0;
  AttemptReason reason = AttemptReason::kExit;
  int64_t user_cpu_us = 0;
  int64_t system_cpu_us = 0;
  int64_t max_rss_kb = 0;
  int64_t memory_peak_bytes = 0;  ///< its cgroup's peak memory (memory.peak); 0: unknown
  std::string detail;  ///< why it could not start (spawn-failed), or the host it was lost with;
                       ///< "" keeps the attempt's note (NoteAttempt)
  int64_t output_bytes = 0;            ///< the size of the output files it left (stdout and stderr)
  std::vector<OutputCut> output_cuts;  ///< streams its supervisor could not write all of
  bool never_started = false;          ///< no supervisor ever ran: the attempt is undone, not lost
};

/// Why and when the daemon asked a running attempt to stop: kept on the attempt's row before the
/// signal goes out, so a restarted daemon still knows an attempt it finds ended was stopped.
struct StopRequest {
  AttemptReason attempt_reason = AttemptReason::kCancelled;  ///< kCancelled or kTimeout
  TaskReason task_reason = TaskReason::kCancelled;           ///< cancelled, superseded or timeout
  WallMs at = 0;                                             ///< when TERM was sent
};

}  // namespace tq
