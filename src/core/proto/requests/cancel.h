// The "cancel" request: cancel tasks.
#pragma once

#include <csignal>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/proto/task_selector.h"

namespace tq {

/// Cancel the tasks `select` names: ids, or filters over pending and running tasks. A running
/// task's processes get `signal`, and KILL after the daemon's kill_grace; with `kill`, KILL at
/// once. The response {"tasks": [TaskSummaryJson...]} comes once all of them are terminal (a
/// summary each, so kMaxWaitIds of them fit one frame). With `progress`, a frame
/// {"stopping": N, "signal": NAME, "grace_ms": G, "ids": [...]} comes first when N of them are
/// running and are signalled now; `ids` names every task selected (a client that loses tqd in
/// the grace sends the cancel again for them).
struct CancelRequest {
  TaskSelector select;
  bool progress = false;  ///< the client wants the stopping frame
  int signal = SIGTERM;   ///< sent first; never KILL, which is `kill`
  bool kill = false;      ///< KILL at once, no grace
};
/// The states a cancel by filters acts on: pending and running.
const std::vector<TaskState>& CancellableStates();
/// A cancel request's body read from its frame, every field checked.
Result<CancelRequest> DecodeCancel(const nlohmann::json& body);
/// The body of a cancel request's frame.
nlohmann::json EncodeCancel(const CancelRequest& request);

}  // namespace tq
