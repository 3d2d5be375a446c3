// How a task maps to a row of the SQL store's `tasks` table (see the schemas):
// the request columns a submit writes and a keyed replace rewrites, how a TaskSpec binds to them,
// and how a selected row reads back into a Task. Internal to the SQL store.
#pragma once

#include <optional>
#include <string>

#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/model/task.h"
#include "core/store/sql/dialect.h"

namespace tq::sql {

class Query;

/// The values of tasks.held: what keeps a pending task from being ready besides time and
/// dependencies (0: nothing).
constexpr int kHeldByJob = 1;   ///< an exclusive run while another run of its job is running
constexpr int kHeldByUser = 2;  ///< `tq hold`, until `tq release`

/// "task N": how every message of the store names a task.
std::string TaskName(TaskId id);

/// True for the states that satisfy a dependency: succeeded and expired.
bool DepDone(TaskState s);
/// True for the states that fail their pending dependents: failed and cancelled.
bool DepFailed(TaskState s);

/// Refuses, before any transaction, the byte strings of `spec` a row cannot carry. Never quotes
/// an env entry: it may hold a secret.
Status CheckBytes(const TaskSpec& spec);
/// Refuses a job name a row cannot carry or the store cannot key on: empty, or with a NUL byte.
Status CheckJobName(const std::string& job);

/// The deadline of a task's pending_ttl when it is queued at `now`; nullopt without a ttl.
std::optional<WallMs> PendingDeadline(const TaskSpec& spec, WallMs now);

/// The request columns, comma-separated, in the order BindRequest binds them.
std::string RequestColumns();
/// How many columns RequestColumns names (BindRequest binds $1 .. $RequestColumnCount()).
int RequestColumnCount();
/// "$1, $2, ..." for every request column.
std::string RequestParams();
/// Binds `spec`'s request columns in RequestColumns order; `env_key` names its stored
/// environment. Both `priority` and `base_priority` take spec.priority.
void BindRequest(Query& q, const TaskSpec& spec, const std::string& env_key);

/// The SELECT of task rows for Get (`full`: with stdin and the environment, which it joins as
/// `e`) and List (NULL in their place), ending in "FROM tasks AS t ". Each row carries its labels
/// and dependencies too, in one column each, so one statement reads a task.
std::string TaskSelect(Dialect d, bool full);
/// How many columns TaskSelect reads; a statement may read more after them.
inline constexpr int kTaskSelectColumns = 49;
/// Reads the current row of a TaskSelect query into a Task (attempts left empty, its stages as
/// many empty ones as it has); an Internal status naming the task when a column is corrupt.
Result<Task> ReadTask(const Query& q);

/// The SELECT of a task's stages, in order (bind the task id).
std::string StageSelect();
/// Reads the current row of a StageSelect query into `out`; false when a column is corrupt.
bool ReadStage(const Query& q, StageSpec* out);
/// Binds stage `pos` of task `id` for an INSERT into task_stages (columns as StageSelect reads
/// them, task_id first).
void BindStage(Query& q, TaskId id, size_t pos, const StageSpec& stage);

/// The SELECT of a task's attempts, oldest first (bind the task id); of its last attempt only
/// when `last_only`.
std::string AttemptSelect(bool last_only = false);
/// Reads the current row of an AttemptSelect query into `out`; false when its reason or units are
/// corrupt.
bool ReadAttempt(const Query& q, Attempt* out);
/// The SELECT of the attempts of the tasks whose ids `in_list` names ("IN ..."), by task and
/// number: AttemptSelect's columns, then the task's id.
std::string AttemptsOfTasksSelect(const std::string& in_list);

}  // namespace tq::sql
