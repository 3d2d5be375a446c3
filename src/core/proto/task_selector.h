// Which tasks a verb that acts on many tasks acts on (SPEC 10): ids, or filters the daemon
// resolves in one request, never "list, then one call per id".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"
#include "core/model/task.h"

namespace tq {

/// The tasks named by `ids`, or, when there are none, every task the caller may act on that
/// matches every filter set.
struct TaskSelector {
  std::vector<TaskId> ids;
  std::vector<TaskState> states;  ///< in any of these; empty: the verb's default states
  std::optional<std::string> queue;
  std::optional<std::string> label;
  std::optional<std::string> user;  ///< only this user's tasks (another's: admins only)

  /// True when filters choose the tasks (no ids were given).
  bool ByFilter() const { return ids.empty(); }
  /// True when some filter is set.
  bool HasFilter() const { return !states.empty() || queue || label || user; }
};

/// The selector in a request body ("ids", "states", "queue", "label", "user"), every member
/// checked: at most kMaxWaitIds ids, ids and filters exclude each other, and "states" may hold
/// only `allowed` states (the refusal names them, as `verb` acts only on those).
Result<TaskSelector> ReadSelector(const nlohmann::json& body, const std::vector<TaskState>& allowed,
                                  const char* verb);
/// "a b c": the names of `states`, for refusals.
std::string StateNames(const std::vector<TaskState>& states);
/// Ok when `selector` names something: ids, or at least one filter (wait and cancel never act on
/// every task of a caller by default); else kInvalid naming "ids".
Status NeedsSome(const TaskSelector& selector);
/// Every state, for a verb that acts on tasks in any of them.
const std::vector<TaskState>& AnyState();
/// Writes the selector's members into a request body.
void WriteSelector(const TaskSelector& selector, nlohmann::json& body);

}  // namespace tq
