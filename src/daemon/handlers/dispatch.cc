#include "daemon/handlers/handlers.h"

namespace tq {

void HandleRequest(Daemon& d, ConnId conn, const Owner& peer, const Request& request) {
  std::visit(
      [&](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, SubmitRequest>) HandleSubmit(d, conn, peer, r);
        if constexpr (std::is_same_v<T, StatusRequest>) HandleStatus(d, conn, peer, r);
        if constexpr (std::is_same_v<T, ListRequest>) HandleList(d, conn, peer, r);
        if constexpr (std::is_same_v<T, WaitRequest>) HandleWait(d, conn, peer, r);
        if constexpr (std::is_same_v<T, CancelRequest>) HandleCancel(d, conn, peer, r);
        if constexpr (std::is_same_v<T, LogsRequest>) HandleLogs(d, conn, peer, r);
        if constexpr (std::is_same_v<T, PingRequest>) HandlePing(d, conn, peer, r);
        if constexpr (std::is_same_v<T, SubmitBatchRequest>) HandleSubmitBatch(d, conn, peer, r);
        if constexpr (std::is_same_v<T, RetryRequest>) HandleRetry(d, conn, peer, r);
        if constexpr (std::is_same_v<T, QueueRequest>) HandleQueue(d, conn, peer, r);
      },
      request);
}

Result<std::vector<Task>> VisibleTasks(Daemon& d, const Owner& peer,
                                       const std::vector<TaskId>& ids) {
  std::vector<Task> tasks;
  for (TaskId id : ids) {
    auto t = d.GetVisible(peer, id);
    if (!t.ok()) return t.status();
    tasks.push_back(std::move(*t));
  }
  return tasks;
}

}  // namespace tq
