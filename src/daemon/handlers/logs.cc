// logs: a task's captured output, one stream or both merged in the order written; of one task
// (which `tq logs -f` follows), or of the tasks a selector names, one after another.

#include <algorithm>

#include "core/model/stage_progress.h"
#include "core/proto/wire_bytes.h"
#include "daemon/handlers/handlers.h"
#include "daemon/host/log.h"
#include "daemon/run/attempt_output.h"

namespace tq {

using nlohmann::json;

namespace {
// The most output one logs response carries; the client asks again from the new offset.
constexpr size_t kChunkBytes = 256 * 1024;
// The most tasks one logs response reads (a few milliseconds); the client asks for the next.
constexpr size_t kMaxParts = 250;

// The bytes of `attempt` of `task`: its files on this host, else the copy the store kept when
// another host ran it (SPEC 12); none yet while another host runs it.
AttemptOutput KeptOutputOf(RequestContext& ctx, const Task& task, int attempt) {
  AttemptOutput here(ctx.files, task.id, attempt);
  if (here.OnThisHost() || !ctx.config->Shared() || attempt == 0) return here;
  auto kept = ctx.store.SavedOutput(task.id, attempt);
  if (!kept.ok()) LogError("{}", kept.status().message());
  if (kept.ok() && kept->has_value()) return AttemptOutput(std::move(**kept));
  return here;
}

// The output of `attempt` of `task` (KeptOutputOf), marked where its supervisor cut it when
// `task` was read with its attempts.
AttemptOutput OutputOf(RequestContext& ctx, const Task& task, int attempt) {
  AttemptOutput here = KeptOutputOf(ctx, task, attempt);
  for (const Attempt& a : task.attempts)
    if (a.number == attempt) here.MarkCuts(a.output_cuts);
  return here;
}

// The host running `attempt` of `task` when that is not this one: its output comes through the
// store only once the attempt ends.
std::string RunningElsewhere(RequestContext& ctx, const Task& task, int attempt) {
  if (task.state != TaskState::kRunning || attempt != task.attempt_count) return "";
  for (const Attempt& a : task.attempts)
    if (a.number == attempt && !a.host.empty() && a.host != ctx.host) return a.host;
  return "";
}

// True once `attempt` of `task` has ended: a later one exists, or the task is not running.
bool AttemptOver(const Task& task, int attempt) {
  return attempt < task.attempt_count || task.state != TaskState::kRunning;
}

// logs of one task: a chunk of one attempt, the latest unless the request names one.
void HandleOneTaskLogs(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r) {
  auto task = VisibleTask(ctx, peer, r.id);
  if (!task.ok() && task.status().code() == ErrorCode::kNotFound) {
    // A group's id: its shards are named, as they are what has output.
    auto shards = VisibleTasks(ctx, peer, {r.id});
    if (shards.ok() && !shards->empty()) {
      std::string ids;
      for (const Task& shard : *shards) ids += (ids.empty() ? "" : " ") + std::to_string(shard.id);
      ctx.server.Send(conn, ErrorResponse(Status::Invalid(
                                "id", "id: " + std::to_string(r.id) + " is a group of " +
                                          std::to_string(shards->size()) +
                                          " shards; give a shard's id, or all of them: " + ids)));
      return;
    }
  }
  if (!task.ok()) {
    ctx.server.Send(conn, ErrorResponse(task.status()));
    return;
  }
  if (r.attempt > task->attempt_count) {
    ctx.server.Send(
        conn, ErrorResponse(Status(ErrorCode::kNotFound, "attempt",
                                   "attempt: task " + std::to_string(r.id) + " has no attempt " +
                                       std::to_string(r.attempt) + " (it has " +
                                       std::to_string(task->attempt_count) + ")")));
    return;
  }
  const int attempt = r.attempt > 0 ? r.attempt : task->attempt_count;
  const AttemptOutput output = OutputOf(ctx, *task, attempt);
  const OutputChunk chunk =
      output.Read(r.stderr_stream, r.merged, AttemptOver(*task, attempt), r.offset, kChunkBytes);
  // An attempt asked for by number is over once it has ended; the latest is over when the task
  // is terminal (a pending task will start another one).
  const bool over = r.attempt > 0 ? AttemptOver(*task, attempt) : IsTerminal(task->state);
  json body{{"data", BytesToJson(chunk.data)},
            {"offset", chunk.next},
            {"eof", over && chunk.next >= chunk.available},
            {"attempt", attempt},
            {"state", StateName(task->state)}};
  if (std::string host = RunningElsewhere(ctx, *task, attempt); !host.empty())
    body["runs_on"] = std::move(host);
  ctx.server.Send(conn, OkResponse(std::move(body)));
}

// What one logs response of several tasks has gathered so far.
struct LogsPage {
  json body;                    ///< "selected", and "next" once the page is full
  json parts = json::array();   ///< each task's part
  size_t budget = kChunkBytes;  ///< output bytes it may still carry
  int64_t offset = 0;           ///< where the next task's output starts
};

// Adds task `id`'s latest attempt, as much as fits, to `page`; false once the page is full
// (then "next" says where the following request goes on).
bool AddLogPart(RequestContext& ctx, const Owner& peer, const LogsRequest& r, TaskId id,
                LogsPage& page) {
  if (page.budget == 0 || page.parts.size() == kMaxParts) {
    page.body["next"] = {{"id", id}, {"offset", page.offset}};
    return false;
  }
  // Without its stdin and environment: only the command, the state and the attempts count.
  auto found = VisibleTasks(ctx, peer, {id});
  if (!found.ok()) {
    page.parts.push_back({{"id", id}, {"error", found.status().message()}});
    page.offset = 0;
    return true;
  }
  const Task* task = &found->front();
  const int attempt = task->attempt_count;
  const OutputChunk chunk =
      OutputOf(ctx, *task, attempt)
          .Read(r.stderr_stream, r.merged, AttemptOver(*task, attempt), page.offset, page.budget);
  const bool done = chunk.next >= chunk.available;
  // A task with stages runs its current stage's command, not a command of its own.
  const StageSpec* stage = StageAt(task->spec, task->stage);
  const std::vector<std::string>& argv = stage ? stage->argv : task->spec.argv;
  const std::optional<std::string>& shell = stage ? stage->shell : task->spec.shell;
  size_t command_bytes = shell ? shell->size() : 0;
  for (const std::string& arg : argv) command_bytes += arg.size();
  page.budget -= std::min(page.budget, chunk.data.size() + command_bytes);
  page.parts.push_back({{"id", id},
                        {"attempt", attempt},
                        {"state", StateName(task->state)},
                        {"stage_name", stage ? json(stage->name) : json()},
                        {"argv", BytesListToJson(argv)},
                        {"shell", shell ? BytesToJson(*shell) : json()},
                        {"offset", page.offset},
                        {"data", BytesToJson(chunk.data)},
                        {"done", done}});
  if (!done) {
    page.body["next"] = {{"id", id}, {"offset", chunk.next}};
    return false;
  }
  page.offset = 0;
  return true;
}

// logs of tasks `ids` (a group's id stands for its shards, read as it is reached): as much of
// each one's latest attempt as fits, in turn, from the request's offset in the first. `body`
// may say what the filters selected.
void SendLogsOf(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r,
                const std::vector<TaskId>& ids, json body) {
  LogsPage page{std::move(body)};
  page.offset = r.offset;
  for (TaskId named : ids) {
    const std::vector<TaskId> tasks = WithShards(ctx, peer, {named});
    if (!std::all_of(tasks.begin(), tasks.end(),
                     [&](TaskId id) { return AddLogPart(ctx, peer, r, id, page); }))
      break;
  }
  page.body["parts"] = std::move(page.parts);
  ctx.server.Send(conn, OkResponse(std::move(page.body)));
}

// logs of the tasks a selector names: its ids, or what its filters match (read a page per pass
// of the loop, then named in "selected" so that the next requests name them by id).
void HandleSelectedLogs(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r) {
  if (!r.select.ByFilter()) return SendLogsOf(ctx, conn, peer, r, r.select.ids, json::object());
  SelectTasks(ctx, conn, peer, r.select, AnyState(), "read the logs of",
              [&ctx, conn, peer, r](Result<std::vector<Task>> tasks) {
                if (!tasks.ok()) return ctx.server.Send(conn, ErrorResponse(tasks.status()));
                const std::vector<TaskId> ids = IdsOf(*tasks);
                SendLogsOf(ctx, conn, peer, r, ids, json{{"selected", ids}});
              });
}

}  // namespace

void HandleLogs(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r) {
  if (r.id != 0)
    HandleOneTaskLogs(ctx, conn, peer, r);
  else
    HandleSelectedLogs(ctx, conn, peer, r);
}

}  // namespace tq
