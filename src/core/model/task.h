// The task model of SPEC 2: states, reasons, the submitted request, attempts, and the one
// function that moves a task between states.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/clock.h"
#include "core/model/notify.h"
#include "core/model/output_cut.h"
#include "core/model/retry_policy.h"
#include "core/model/shard.h"
#include "core/model/stage.h"
#include "core/model/status.h"
#include "core/model/unit_use.h"

namespace tq {

/// The label the scheduler gives each run of a cron job, before the job's name; reserved.
inline constexpr const char* kJobLabelPrefix = "job:";

/// A task's id: assigned by the daemon, increasing, never reused.
using TaskId = int64_t;

/// Where a task is in its life. Terminal: succeeded, failed, cancelled, expired.
enum class TaskState { kPending, kRunning, kSucceeded, kFailed, kCancelled, kExpired };

/// Why a task reached its terminal state (kNone while it is not terminal).
enum class TaskReason {
  kNone,
  kExit,
  kSignal,
  kTimeout,
  kSpawnFailed,
  kDependencyFailed,
  kExpiredPending,
  kSuperseded,
  kCancelled,
  kUserGone,
  kLost,         ///< the last attempt's fate could not be learned and no retry was left
  kContextLost,  ///< its next stage's context was on a host that was fenced (SPEC 12, 13)
};

/// Why one attempt ended (kNone while it runs).
enum class AttemptReason { kNone, kExit, kSignal, kTimeout, kCancelled, kSpawnFailed, kLost };

const char* StateName(TaskState s);
const char* TaskReasonName(TaskReason r);
const char* AttemptReasonName(AttemptReason r);
/// Parse the spellings above; nullopt for anything else.
std::optional<TaskState> StateFromName(const std::string& name);
std::optional<TaskReason> TaskReasonFromName(const std::string& name);
std::optional<AttemptReason> AttemptReasonFromName(const std::string& name);
/// True for succeeded, failed, cancelled and expired.
bool IsTerminal(TaskState s);

/// Who submitted a task, from the socket's peer credentials, never from the request.
struct Owner {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string name;
};

/// The queue of a task submitted without one.
inline constexpr const char* kDefaultQueue = "default";

/// Default priority: the middle of 1 (highest) .. 5 (lowest).
constexpr int kDefaultPriority = 3;
constexpr int kMinPriority = 1;
constexpr int kMaxPriority = 5;

/// What the submitter asked for. Byte strings (argv, shell, stdin, cwd, env) may hold any bytes
/// but NUL.
struct TaskSpec {
  std::vector<std::string> argv;     ///< executed directly when `shell` is empty
  std::optional<std::string> shell;  ///< run as /bin/sh -c SHELL instead of argv
  std::string queue = kDefaultQueue;
  int priority = kDefaultPriority;
  std::optional<std::string> stdin_data;  ///< payload fed to stdin; otherwise /dev/null
  std::string cwd;                        ///< working directory captured at submit
  std::vector<std::string> env;           ///< "NAME=VALUE" entries captured at submit
  bool clean_env = false;                 ///< run with cron's environment instead of `env`
  WallMs not_before = 0;                  ///< earliest start (0: at once)
  std::vector<TaskId> after;              ///< ids that must succeed (or expire) first
  std::vector<std::string> labels;        ///< a user's own never begin with kJobLabelPrefix
  int64_t timeout_ms = 0;                 ///< running-time limit (0: none)
  std::optional<std::string> key;         ///< idempotency key, scoped to the owner (SPEC 3)
  int64_t version = 0;                    ///< version of the keyed request
  RetryPolicy retry;                      ///< resolved at submit from the flags and queue defaults
  int64_t pending_ttl_ms = 0;      ///< fail if still pending this long after submit (0: never)
  bool keep_background = false;    ///< leave descendants running when the main process ends
  std::optional<std::string> job;  ///< the cron job this task is a run of (SPEC 7), if any
  /// A run of a job whose overlap is not `allow`: it may start only while no other task of its
  /// job is running (the store keeps it from being ready until then).
  bool job_exclusive = false;
  NotifySpec notify;  ///< hooks and mail at its end (SPEC 7a)
  UnitRequest use;    ///< units of tqd.toml's [resources] each attempt holds (SPEC 14)
  /// Its steps, run in order (SPEC 13); when not empty, argv and shell are empty and each stage
  /// carries its own command.
  std::vector<StageSpec> stages;
  std::optional<ShardOf> shard;  ///< its place in a sharded group (set by the store at submit)
  /// The host that must run it (SPEC 12), or "" for any host its queue lets take it: asked with
  /// `tq submit --host`, decided by tqd at submit (PlaceTask).
  std::string run_on;
};

/// One run of a task under its supervisor.
struct Attempt {
  int number = 0;  ///< 1-based
  WallMs started = 0;
  WallMs ended = 0;    ///< 0 while running
  int pid = 0;         ///< the task's process (the shim's child)
  int shim_pid = 0;    ///< the supervising shim
  int exit_code = -1;  ///< -1 unless it exited
  int signal = 0;      ///< the signal that ended it, 0 if none
  AttemptReason reason = AttemptReason::kNone;
  int64_t user_cpu_us = 0;
  int64_t system_cpu_us = 0;
  int64_t max_rss_kb = 0;
  int64_t memory_peak_bytes = 0;  ///< its cgroup's peak memory, every process; 0: unknown
  /// Why it could not start (spawn-failed), e.g. "cwd /x: No such file...", the host it was
  /// lost with, or what tqd left out of its stage's $TQ_CONTEXT/env.
  std::string detail;
  std::vector<OutputCut> output_cuts;  ///< streams its supervisor could not write all of
  UnitGrant units;                     ///< the resource units it held (SPEC 14)
  int stage = 0;     ///< the index of the stage it ran (0 for a task without stages)
  std::string host;  ///< the host whose attempt it is (SPEC 12); "" before hosts were kept
};

/// A task as the store holds it.
struct Task {
  TaskId id = 0;
  Owner owner;
  TaskSpec spec;
  TaskState state = TaskState::kPending;
  TaskReason reason = TaskReason::kNone;
  int attempt_count = 0;
  int exit_code = -1;  ///< of the last attempt, -1 if none exited
  int signal = 0;      ///< of the last attempt
  WallMs created = 0;
  WallMs finished = 0;   ///< 0 until terminal
  bool on_hold = false;  ///< kept from starting by `tq hold` (a running one: its next stage)
  int stage = 0;  ///< the index of its current stage: next to run, running, or where it ended
  std::vector<Attempt> attempts;  ///< oldest first; filled by Store::Get
};

/// Something that happens to a task; each is one operation of the Store (store.h).
enum class TaskEvent {
  kStart,    ///< StartAttempt: a ready pending task gets an attempt
  kSucceed,  ///< FinishAttempt with succeeded
  kFail,     ///< FinishAttempt with failed; EndPending or ExpirePendingTtl of a pending task
  kCancel,   ///< FinishAttempt or EndPending with cancelled
  kRetry,    ///< RetryLater: the attempt failed and the task waits for the next one
  kUnstart,  ///< UnstartAttempt: the supervisor never started, the attempt is undone
  kRequeue,  ///< Requeue (`tq retry`) of a failed or cancelled task
  kReplace,  ///< a keyed submit of the same version replaces the request (SPEC 3)
  kExpire,   ///< ExpireSucceeded: success retention is over
  kAdvance,  ///< AdvanceStage: a stage before the last succeeded, the task waits for the next
};

/// The state `from` moves to on `event`, or an error naming the illegal pair. The one table of
/// legal transitions: DecideAttemptEnd takes its states from it, and a test walks every pair
/// through the store, so the store's guards cannot drift from it.
Result<TaskState> Transition(TaskState from, TaskEvent event);
/// The spelling of `event` ("start"), for messages.
const char* EventName(TaskEvent event);

/// The terminal outcome of a finished attempt: succeeded on exit 0, otherwise failed with the
/// task reason matching the attempt reason.
TaskReason TaskReasonForAttempt(AttemptReason r);

}  // namespace tq
