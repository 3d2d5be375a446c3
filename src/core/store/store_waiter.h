// How a call that waits for a network store's answer waits (SPEC 6, "the loop never blocks"):
// tqd waits on its event loop, which meanwhile answers what needs no store.
#pragma once

#include <functional>

namespace tq {

/// Waits, as poll(2) does for one descriptor, for `fd` to be ready for `events` (POLLIN,
/// POLLOUT; fd -1: for the time only) within `timeout_ms` (-1: no bound): 1 when it is ready, 0
/// when the time ran out, -1 when it cannot be waited for.
using StoreWaiter = std::function<int(int fd, short events, int timeout_ms)>;

}  // namespace tq
