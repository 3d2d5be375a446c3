#include "daemon/host/make_dirs.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace tq {

Status MakeDirs(const std::string& path, mode_t mode) {
  // Each prefix ending before a '/' (and the whole path) is created in turn from the top.
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    const std::string dir = path.substr(0, end);
    if (!dir.empty() && mkdir(dir.c_str(), mode) != 0 && errno != EEXIST)
      return Status(ErrorCode::kConfig, "state",
                    "cannot create " + dir + ": " + std::strerror(errno));
    if (end == std::string::npos) break;
  }
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status(ErrorCode::kConfig, "state", "cannot create " + path + ": not a directory");
  return Status::Ok();
}

}  // namespace tq
