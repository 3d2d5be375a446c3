// Clients waiting for tasks to end: `tq wait` gets one frame per task as it ends, `tq cancel`
// one answer once all its tasks have ended.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"
#include "daemon/serve/server.h"

namespace tq {

/// Tracks which connection waits for which tasks.
class Waiters {
 public:
  /// How a waiter is answered.
  enum class Kind {
    kStream,   ///< {"task"} per task as it ends, then {"end": true}
    kCollect,  ///< one {"tasks": [TaskSummaryJson...]} when all have ended
  };
  /// Sends one frame to a connection; `last` marks the end of the answer.
  using Sender = std::function<void(ConnId, const nlohmann::json&, bool last)>;

  explicit Waiters(Sender send) : send_(std::move(send)) {}

  /// Registers `conn` as waiting for `tasks` (as they are now); answers those already terminal
  /// at once and the rest through OnTerminal. No tasks at all: the answer's end at once.
  void Add(ConnId conn, Kind kind, const std::vector<Task>& tasks);
  /// Tells the waiters of `task` that it reached a terminal state.
  void OnTerminal(const Task& task);
  /// Answers every waiter of `id` with the error `why` (the task's end cannot be read) and
  /// forgets what they waited for: an error ends their answer, never silence.
  void Fail(TaskId id, const Status& why);
  /// Forgets everything `conn` waited for (it closed).
  void Drop(ConnId conn);
  /// Connections still waiting for some task.
  size_t Count() const { return entries_.size(); }
  /// The tasks some connection waits for, each once, in id order.
  std::vector<TaskId> Awaited() const;

 private:
  struct Entry {
    Kind kind = Kind::kStream;
    std::set<TaskId> remaining;
    nlohmann::json collected = nlohmann::json::array();
  };

  void Deliver(ConnId conn, Entry& entry, const Task& task);

  Sender send_;
  std::unordered_map<ConnId, Entry> entries_;
  std::multimap<TaskId, ConnId> by_task_;
};

}  // namespace tq
