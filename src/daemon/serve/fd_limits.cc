#include "daemon/serve/fd_limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdint>

namespace tq {

size_t SoftFdLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<size_t>(lim.rlim_cur);
}

size_t RaiseFdLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return 1024;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    // An infinite hard limit is above the kernel's nr_open: then the soft one stays.
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  return lim.rlim_cur == RLIM_INFINITY ? SIZE_MAX : static_cast<size_t>(lim.rlim_cur);
}

size_t ConnectionBudget(size_t fd_limit, int max_running) {
  const size_t reserve =
      kFdsForDaemon + kFdsPerRunningTask * static_cast<size_t>(std::max(max_running, 0));
  const size_t left = fd_limit > reserve ? fd_limit - reserve : 0;
  return std::clamp(left, kMinConnections, kMaxConnectionsCap);
}

}  // namespace tq
