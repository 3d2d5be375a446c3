// The "list" request: one page of the caller's tasks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// One page of the caller's tasks (every user's for root and the daemon's own user) matching
/// the filters (a task in any of `states`), newest first, older than before_id when set; unset
/// filters match everything. `command` keeps the tasks whose command holds that text (ASCII case
/// ignored; see CommandContains). Response: {"tasks": [...], "more": bool, "next_before_id": id}:
/// at most min(limit, kMaxListPage) tasks and about kMaxListPageBytes of them; "more" says older
/// tasks may still match: ask again with before_id = next_before_id (the last task's id, or with
/// `command`, the oldest task read: a request reads at most kMaxListScan tasks). A listed task
/// has no "attempt_log" but "last_attempt" (an entry of it; null before any). A pending task
/// also carries "waiting": {"until" (a future not_before, or null), "after" (its unfinished
/// dependencies), "queue_paused", "held", "units" (a resource short of free units, or null),
/// "cannot_start" (why no wait ends it: units tqd.toml does not have, or null),
/// "user_max_running" (its owner's own max_running when that many of theirs run, or null),
/// "host" ({"name", "state"} of the host it is placed on when that host is not live, or null)}.
///
/// On the wire one state travels as "state" (what every tqd reads), several as "states" (an
/// array of names); both are read, together.
struct ListRequest {
  std::vector<TaskState> states;  ///< only tasks in one of these states (empty: any state)
  std::optional<std::string> queue;
  std::optional<std::string> label;
  /// Only this user's tasks: any user for those who see every task (root, admins), else only
  /// the caller's own name.
  std::optional<std::string> user;
  std::optional<std::string> command;  ///< only tasks whose command holds this text
  std::optional<TaskId> before_id;     ///< only tasks older than this one (the next page)
  int limit = 100;
};
/// A list request's body read from its frame, every field checked.
Result<ListRequest> DecodeList(const nlohmann::json& body);
/// The body of a list request's frame.
nlohmann::json EncodeList(const ListRequest& request);

}  // namespace tq
