#include "core/proto/task_selector.h"

#include <algorithm>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/user_rules.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

namespace {

// The states named by `names`, each one of `allowed`.
Result<std::vector<TaskState>> StatesNamed(const std::vector<std::string>& names,
                                           const std::vector<TaskState>& allowed,
                                           const char* verb) {
  std::vector<TaskState> states;
  for (const std::string& name : names) {
    const std::optional<TaskState> s = StateFromName(name);
    if (!s || std::find(allowed.begin(), allowed.end(), *s) == allowed.end())
      return Status::Invalid("states", "states: " + std::string(verb) + " acts on tasks that are " +
                                           StateNames(allowed) + "; " + Quote(name) +
                                           " is not one");
    if (std::find(states.begin(), states.end(), *s) == states.end()) states.push_back(*s);
  }
  return states;
}

}  // namespace

Result<TaskSelector> ReadSelector(const json& j, const std::vector<TaskState>& allowed,
                                  const char* verb) {
  TaskSelector s;
  std::vector<std::string> states;
  std::string queue, label, user;
  for (Status st : {Read(j, "ids", s.ids, "an array of task ids"),
                    Read(j, "states", states, "an array of state names"),
                    Read(j, "queue", queue, "a queue name"), Read(j, "label", label, "a label"),
                    Read(j, "user", user, "a user name")}) {
    if (!st.ok()) return st;
  }
  if (s.ids.size() > kMaxWaitIds)
    return Status::Invalid("ids", "ids: " + std::to_string(s.ids.size()) + " task ids; at most " +
                                      std::to_string(kMaxWaitIds) + " in one request");
  for (TaskId id : s.ids)
    if (id < 1)
      return Status::Invalid("ids", "ids: " + std::to_string(id) + " is not a task id (>= 1)");
  auto named = StatesNamed(states, allowed, verb);
  if (!named.ok()) return named.status();
  s.states = std::move(*named);
  if (!queue.empty()) s.queue = queue;
  if (!label.empty()) s.label = label;
  if (!user.empty() && !ValidAccountName(user))
    return Status::Invalid("user", "user: " + Quote(user) + " is not a user name");
  if (!user.empty()) s.user = user;
  if (!s.ids.empty() && s.HasFilter())
    return Status::Invalid("ids",
                           "ids: give task ids or filters (state, queue, label, user), "
                           "not both");
  return s;
}

std::string StateNames(const std::vector<TaskState>& states) {
  std::string names;
  for (TaskState s : states) names += (names.empty() ? "" : " ") + std::string(StateName(s));
  return names;
}

Status NeedsSome(const TaskSelector& s) {
  if (!s.ids.empty() || s.HasFilter()) return Status::Ok();
  return Status::Invalid("ids",
                         "ids: at least one task id is required, or a filter (state, "
                         "queue, label, user)");
}

const std::vector<TaskState>& AnyState() {
  static const std::vector<TaskState> states{TaskState::kPending,   TaskState::kRunning,
                                             TaskState::kSucceeded, TaskState::kFailed,
                                             TaskState::kCancelled, TaskState::kExpired};
  return states;
}

void WriteSelector(const TaskSelector& s, json& j) {
  if (!s.ids.empty()) j["ids"] = s.ids;
  if (!s.states.empty()) {
    json states = json::array();
    for (TaskState st : s.states) states.push_back(StateName(st));
    j["states"] = std::move(states);
  }
  if (s.queue) j["queue"] = *s.queue;
  if (s.label) j["label"] = *s.label;
  if (s.user) j["user"] = *s.user;
}

}  // namespace tq
