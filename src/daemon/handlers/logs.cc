#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/bytes.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {
// The most output one logs response carries; the client asks again from the new offset.
constexpr size_t kChunkBytes = 256 * 1024;
}  // namespace

void HandleLogs(Daemon& d, ConnId conn, const Owner& peer, const LogsRequest& r) {
  auto task = d.GetVisible(peer, r.id);
  if (!task.ok()) {
    d.server().Send(conn, ErrorResponse(task.status()));
    return;
  }
  const int attempt = task->attempt_count;
  std::string chunk;
  int64_t size = 0;
  if (attempt > 0) {
    const std::string path =
        r.stderr_stream ? d.files().Stderr(r.id, attempt) : d.files().Stdout(r.id, attempt);
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
  const int64_t next = r.offset + static_cast<int64_t>(chunk.size());
  const bool eof = IsTerminal(task->state) && next >= size;
  d.server().Send(conn, OkResponse({{"data", BytesToJson(chunk)},
                                    {"offset", next},
                                    {"eof", eof},
                                    {"attempt", attempt},
                                    {"state", StateName(task->state)}}));
}

}  // namespace tq
