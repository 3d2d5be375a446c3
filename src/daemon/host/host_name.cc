#include "daemon/host/host_name.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/model/host_name.h"

namespace tq {

Result<std::string> ThisHostName(const Config& config) {
  if (!config.host.empty()) return config.host;
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0)
    return Status(ErrorCode::kConfig, "host",
                  std::string("host: the machine's hostname cannot be read (") +
                      std::strerror(errno) + "): set host in tqd.toml");
  if (Status s = CheckHostName("host", buf); !s.ok())
    return Status(ErrorCode::kConfig, "host",
                  "host: the machine's " + s.message() + ": set host in tqd.toml");
  return std::string(buf);
}

}  // namespace tq
