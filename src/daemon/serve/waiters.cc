#include "daemon/serve/waiters.h"

#include "core/proto/protocol.h"

namespace tq {

void Waiters::Add(ConnId conn, Kind kind, const std::vector<Task>& tasks) {
  if (tasks.empty()) {  // a selection that matched nothing: answered at once
    send_(conn,
          OkResponse(kind == Kind::kStream ? nlohmann::json{{"end", true}}
                                           : nlohmann::json{{"tasks", nlohmann::json::array()}}),
          true);
    return;
  }
  Entry& entry = entries_[conn];
  entry.kind = kind;
  for (const Task& t : tasks) entry.remaining.insert(t.id);
  for (TaskId id : entry.remaining) by_task_.emplace(id, conn);
  for (const Task& t : tasks) {
    if (!IsTerminal(t.state)) continue;
    auto it = entries_.find(conn);
    if (it == entries_.end()) return;
    Deliver(conn, it->second, t);
  }
}

void Waiters::OnTerminal(const Task& task) {
  std::vector<ConnId> conns;
  auto [lo, hi] = by_task_.equal_range(task.id);
  for (auto it = lo; it != hi; ++it) conns.push_back(it->second);
  for (ConnId conn : conns) {
    auto it = entries_.find(conn);
    if (it != entries_.end()) Deliver(conn, it->second, task);
  }
}

void Waiters::Deliver(ConnId conn, Entry& entry, const Task& task) {
  if (entry.remaining.erase(task.id) == 0) return;  // an id given twice is answered once
  auto [lo, hi] = by_task_.equal_range(task.id);
  for (auto it = lo; it != hi; ++it) {
    if (it->second == conn) {
      by_task_.erase(it);
      break;
    }
  }
  const bool done = entry.remaining.empty();
  if (entry.kind == Kind::kStream) {
    send_(conn, OkResponse({{"task", TaskToJson(task)}}), false);
    if (done) send_(conn, OkResponse({{"end", true}}), true);
  } else {
    entry.collected.push_back(TaskSummaryJson(task));  // 100,000 of them fit one frame
    if (done) send_(conn, OkResponse({{"tasks", std::move(entry.collected)}}), true);
  }
  if (done) entries_.erase(conn);
}

void Waiters::Fail(TaskId id, const Status& why) {
  std::vector<ConnId> conns;
  auto [lo, hi] = by_task_.equal_range(id);
  for (auto it = lo; it != hi; ++it) conns.push_back(it->second);
  for (ConnId conn : conns) {
    Drop(conn);
    send_(conn, ErrorResponse(why), true);
  }
}

std::vector<TaskId> Waiters::Awaited() const {
  std::vector<TaskId> ids;
  for (auto it = by_task_.begin(); it != by_task_.end(); it = by_task_.upper_bound(it->first))
    ids.push_back(it->first);
  return ids;
}

void Waiters::Drop(ConnId conn) {
  auto it = entries_.find(conn);
  if (it == entries_.end()) return;
  for (TaskId id : it->second.remaining) {
    auto [lo, hi] = by_task_.equal_range(id);
    for (auto t = lo; t != hi; ++t) {
      if (t->second == conn) {
        by_task_.erase(t);
        break;
      }
    }
  }
  entries_.erase(it);
}

}  // namespace tq
