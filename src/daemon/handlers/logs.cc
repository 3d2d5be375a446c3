#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/proto/wire_bytes.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {
// The most output one logs response carries; the client asks again from the new offset.
constexpr size_t kChunkBytes = 256 * 1024;
}  // namespace

void HandleLogs(RequestContext& ctx, ConnId conn, const Owner& peer, const LogsRequest& r) {
  auto task = VisibleTask(ctx, peer, r.id);
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
  std::string chunk;
  int64_t size = 0;
  if (attempt > 0) {
    const std::string path =
        r.stderr_stream ? ctx.files.Stderr(r.id, attempt) : ctx.files.Stdout(r.id, attempt);
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && fstat(fd, &st) == 0) {
      size = st.st_size;
      if (r.offset < size) {
        chunk.resize(std::min<size_t>(kChunkBytes, static_cast<size_t>(size - r.offset)));
        const ssize_t n = pread(fd, chunk.data(), chunk.size(), r.offset);
        chunk.resize(n > 0 ? static_cast<size_t>(n) : 0);
      }
    }
    if (fd >= 0) close(fd);
  }
  // An attempt asked for by number is over once a later one exists or the task stopped running;
  // the latest is over when the task is terminal (a pending task will start another one).
  const bool over = r.attempt > 0
                        ? attempt < task->attempt_count || task->state != TaskState::kRunning
                        : IsTerminal(task->state);
  const int64_t next = r.offset + static_cast<int64_t>(chunk.size());
  ctx.server.Send(conn, OkResponse({{"data", BytesToJson(chunk)},
                                    {"offset", next},
                                    {"eof", over && next >= size},
                                    {"attempt", attempt},
                                    {"state", StateName(task->state)}}));
}

}  // namespace tq
