#include "cli/job_file_text.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/jobs/job_file.h"

namespace tq {

Result<std::string> ReadJobFileText(const std::string& path) {
  auto refuse = [&](const std::string& why) {
    return Status(ErrorCode::kInvalid, "file", path + ": " + why);
  };
  int fd = path == "-" ? ::dup(0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return refuse(std::string("cannot open: ") + std::strerror(errno));
  std::string text;
  char buf[65536];
  Status failed;
  while (text.size() <= kMaxJobFileBytes) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failed = refuse(std::string("cannot read: ") + std::strerror(errno));
      break;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!failed.ok()) return failed;
  return text;
}

}  // namespace tq
