#include "core/proto/requests/list.h"

#include <algorithm>
#include <string>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/user_rules.h"
#include "core/proto/json_read.h"
#include "core/proto/task_selector.h"

namespace tq {

using nlohmann::json;

namespace {

// Adds the state named `name` (the wire's field `field`) to `states` unless there already.
Status AddState(std::vector<TaskState>& states, const std::string& name, const char* field) {
  const std::optional<TaskState> s = StateFromName(name);
  if (!s)
    return Status::Invalid(field, std::string(field) + ": " + Quote(name) + " is not one of " +
                                      StateNames(AnyState()));
  if (std::find(states.begin(), states.end(), *s) == states.end()) states.push_back(*s);
  return Status::Ok();
}

}  // namespace

Result<ListRequest> DecodeList(const json& j) {
  ListRequest r;
  std::string state, queue, label, user, command;
  std::vector<std::string> states;
  for (Status st :
       {Read(j, "state", state, "a state name"),
        Read(j, "states", states, "an array of state names"), Read(j, "queue", queue, "a string"),
        Read(j, "label", label, "a string"), Read(j, "user", user, "a user name"),
        Read(j, "command", command, "a string"), Read(j, "limit", r.limit, "an integer"),
        ReadOptional(j, "before_id", r.before_id, "a task id")}) {
    if (!st.ok()) return st;
  }
  if (r.before_id && *r.before_id < 1)
    return Status::Invalid(
        "before_id", "before_id: " + std::to_string(*r.before_id) + " is not a task id (>= 1)");
  if (!state.empty())  // from an older tq, which sends one state
    if (Status st = AddState(r.states, state, "state"); !st.ok()) return st;
  for (const std::string& name : states)
    if (Status st = AddState(r.states, name, "states"); !st.ok()) return st;
  if (!queue.empty()) r.queue = queue;
  if (!label.empty()) r.label = label;
  if (!user.empty() && !ValidAccountName(user))
    return Status::Invalid("user", "user: " + Quote(user) + " is not a user name");
  if (!user.empty()) r.user = user;
  if (command.size() > kMaxCommandFilterBytes)
    return Status::Invalid("command", "command: " + std::to_string(command.size()) +
                                          " bytes is longer than the " +
                                          std::to_string(kMaxCommandFilterBytes) + " allowed");
  if (!command.empty()) r.command = command;
  if (r.limit < 1)
    return Status::Invalid("limit", "limit: " + std::to_string(r.limit) + " must be >= 1");
  return r;
}
json EncodeList(const ListRequest& r) {
  json j{{"limit", r.limit}};
  // One state goes as "state", which every tqd reads (one that predates "states" ignores it).
  if (r.states.size() == 1) j["state"] = StateName(r.states.front());
  if (r.states.size() > 1) {
    json names = json::array();
    for (TaskState s : r.states) names.push_back(StateName(s));
    j["states"] = std::move(names);
  }
  if (r.queue) j["queue"] = *r.queue;
  if (r.label) j["label"] = *r.label;
  if (r.user) j["user"] = *r.user;
  if (r.command) j["command"] = *r.command;
  if (r.before_id) j["before_id"] = *r.before_id;
  return j;
}

}  // namespace tq
