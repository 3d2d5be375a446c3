#include "daemon/host/metrics_textfile.h"

#include "daemon/host/log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tq {

Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  const auto fail = [&](const std::string& what) {
    const std::string why = strerror(errno);
    unlink(tmp.c_str());
    return Status(ErrorCode::kInternal, "metrics_textfile",
                  "metrics_textfile: cannot " + what + ": " + why);
  };
  // O_EXCL: never write through a file someone else put there; one left by a crash goes first.
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
  int fd = open(tmp.c_str(), flags, 0644);
  if (fd < 0 && errno == EEXIST && unlink(tmp.c_str()) == 0) fd = open(tmp.c_str(), flags, 0644);
  if (fd < 0) return fail("create " + tmp);
  fchmod(fd, 0644);  // whatever the umask
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      close(fd);
      return fail("write " + tmp);
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return fail("write " + tmp);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return fail("rename " + tmp + " to " + path);
  return Status::Ok();
}

MetricsTextfile::MetricsTextfile(EventLoop& loop, const Clock& clock, std::string path,
                                 MonoMs interval_ms, Render render)
    : loop_(loop),
      clock_(clock),
      path_(std::move(path)),
      interval_ms_(interval_ms),
      render_(std::move(render)),
      failures_(clock, 60 * 1000) {}

MetricsTextfile::~MetricsTextfile() {
  loop_.CancelTimer(timer_);
}

void MetricsTextfile::Start() {
  Write();
}

void MetricsTextfile::Write() {
  timer_ = loop_.AddTimer(clock_.MonoNow() + interval_ms_, [this] { Write(); });
  const std::optional<std::string> text = render_();
  if (!text) return;
  if (Status st = WriteFileAtomically(path_, *text); !st.ok())
    failures_.Log(LogLevel::kWarn, st.message());
}

}  // namespace tq
