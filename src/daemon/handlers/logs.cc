// logs: a task's captured output, one stream or both merged in the order written; of one task
// (which `tq logs -f` follows), or of the tasks a selector names, one after another.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model/output_order.h"
#include "core/proto/wire_bytes.h"
#include "daemon/handlers/handlers.h"

namespace tq {

using nlohmann::json;

namespace {
// The most output one logs response carries; the client asks again from the new offset.
constexpr size_t kChunkBytes = 256 * 1024;
// The most of an order file read (a switch is a line of a few bytes); the rest counts as "end".
constexpr size_t kMaxOrderBytes = 16u << 20;

// An open output file of an attempt's: its descriptor (-1 when it does not exist) and size.
struct OutputFile {
  explicit OutputFile(const std::string& path)
      : fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) {
    struct stat st {};
    if (fd >= 0 && fstat(fd, &st) == 0) size = st.st_size;
  }
  ~OutputFile() {
    if (fd >= 0) close(fd);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends up to `max` bytes from `offset` to `out`; how many it appended.
  size_t ReadInto(std::string& out, int64_t offset, size_t max) const {
    if (fd < 0 || offset >= size || max == 0) return 0;
    const size_t want = std::min<size_t>(max, static_cast<size_t>(size - offset));
    const size_t at = out.size();
    out.resize(at + want);
    const ssize_t n = pread(fd, out.data() + at, want, offset);
    out.resize(at + (n > 0 ? static_cast<size_t>(n) : 0));
    return n > 0 ? static_cast<size_t>(n) : 0;
  }

  int fd;
  int64_t size = 0;
};

// The order file's text, as much as kMaxOrderBytes; "" when there is none.
std::string ReadOrder(const std::string& path) {
  OutputFile file(path);
  std::string text;
  file.ReadInto(text, 0, kMaxOrderBytes);
  return text;
}

// Some of an attempt's output: the bytes, the offset after them, and the size of all there is
// to read now (so the caller knows whether it has it all).
struct OutputChunk {
  std::string data;
  int64_t next = 0;
  int64_t available = 0;
};

// Up to `max` bytes of an attempt's output from `offset`: one stream, or with `merged` both in
// the order written (`over`: the attempt has ended, so its files are whole).
OutputChunk ReadOutput(const TaskFiles& files, TaskId id, int attempt, bool stderr_stream,
                       bool merged, bool over, int64_t offset, size_t max) {
  OutputChunk chunk;
  if (attempt == 0) return chunk;
  if (!merged) {
    OutputFile file(stderr_stream ? files.Stderr(id, attempt) : files.Stdout(id, attempt));
    file.ReadInto(chunk.data, offset, max);
    chunk.available = file.size;
  } else {
    // The order first, then the files: what they hold beyond it was written after.
    const std::string order = ReadOrder(files.Order(id, attempt));
    const OutputFile out(files.Stdout(id, attempt)), err(files.Stderr(id, attempt));
    const std::vector<OutputSegment> segments = MergedSegments(order, out.size, err.size, over);
    chunk.available = SegmentsSize(segments);
    int64_t start = 0;  // where the segment begins in the merged output
    for (const OutputSegment& s : segments) {
      const int64_t length = s.end - s.begin;
      if (offset < start + length && chunk.data.size() < max) {
        const int64_t from = s.begin + std::max<int64_t>(0, offset - start);
        const size_t room = std::min<size_t>(max - chunk.data.size(), s.end - from);
        (s.stderr_stream ? err : out).ReadInto(chunk.data, from, room);
      }
      start += length;
    }
  }
  chunk.next = offset + static_cast<int64_t>(chunk.data.size());
  return chunk;
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
  const OutputChunk chunk = ReadOutput(ctx.files, r.id, attempt, r.stderr_stream, r.merged,
                                       AttemptOver(*task, attempt), r.offset, kChunkBytes);
  // An attempt asked for by number is over once it has ended; the latest is over when the task
  // is terminal (a pending task will start another one).
  const bool over = r.attempt > 0 ? AttemptOver(*task, attempt) : IsTerminal(task->state);
  ctx.server.Send(conn, OkResponse({{"data", BytesToJson(chunk.data)},
                                    {"offset", chunk.next},
                                    {"eof", over && chunk.next >= chunk.available},
                                    {"attempt", attempt},
                                    {"state", StateName(task->state)}}));
}

// logs of the tasks a selector names: as much of each one's latest attempt as fits, in turn.
void HandleSelectedLogs(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r) {
  json body = json::object();
  std::vector<TaskId> ids = WithShards(ctx, peer, r.select.ids);
  if (r.select.ByFilter()) {
    auto tasks = SelectedTasks(ctx, peer, r.select, AnyState(), "read the logs of");
    if (!tasks.ok()) {
      ctx.server.Send(conn, ErrorResponse(tasks.status()));
      return;
    }
    ids = IdsOf(*tasks);
    body["selected"] = ids;
  }
  json parts = json::array();
  size_t budget = kChunkBytes;
  int64_t offset = r.offset;
  for (TaskId id : ids) {
    if (budget == 0) {
      body["next"] = {{"id", id}, {"offset", offset}};
      break;
    }
    // Without its stdin and environment: only the command, the state and the attempts count.
    auto found = VisibleTasks(ctx, peer, {id});
    if (!found.ok()) {
      parts.push_back({{"id", id}, {"error", found.status().message()}});
      offset = 0;
      continue;
    }
    const Task* task = &found->front();
    const int attempt = task->attempt_count;
    OutputChunk chunk = ReadOutput(ctx.files, id, attempt, r.stderr_stream, r.merged,
                                   AttemptOver(*task, attempt), offset, budget);
    const bool done = chunk.next >= chunk.available;
    size_t command_bytes = task->spec.shell ? task->spec.shell->size() : 0;
    for (const std::string& arg : task->spec.argv) command_bytes += arg.size();
    budget -= std::min(budget, chunk.data.size() + command_bytes);
    parts.push_back({{"id", id},
                     {"attempt", attempt},
                     {"state", StateName(task->state)},
                     {"argv", BytesListToJson(task->spec.argv)},
                     {"shell", task->spec.shell ? BytesToJson(*task->spec.shell) : json()},
                     {"offset", offset},
                     {"data", BytesToJson(chunk.data)},
                     {"done", done}});
    if (!done) {
      body["next"] = {{"id", id}, {"offset", chunk.next}};
      break;
    }
    offset = 0;
  }
  body["parts"] = std::move(parts);
  ctx.server.Send(conn, OkResponse(std::move(body)));
}

}  // namespace

void HandleLogs(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r) {
  if (r.id != 0)
    HandleOneTaskLogs(ctx, conn, peer, r);
  else
    HandleSelectedLogs(ctx, conn, peer, r);
}

}  // namespace tq
