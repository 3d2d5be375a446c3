#include "core/proto/requests/list.h"

#include <string>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/user_rules.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

Result<ListRequest> DecodeList(const json& j) {
  ListRequest r;
  std::string state, queue, label, user, command;
  for (Status st :
       {Read(j, "state", state, "a state name"), Read(j, "queue", queue, "a string"),
        Read(j, "label", label, "a string"), Read(j, "user", user, "a user name"),
        Read(j, "command", command, "a string"), Read(j, "limit", r.limit, "an integer"),
        ReadOptional(j, "before_id", r.before_id, "a task id")}) {
    if (!st.ok()) return st;
  }
  if (r.before_id && *r.before_id < 1)
    return Status::Invalid(
        "before_id", "before_id: " + std::to_string(*r.before_id) + " is not a task id (>= 1)");
  if (!state.empty()) {
    r.state = StateFromName(state);
    if (!r.state)
      return Status::Invalid("state", "state: " + Quote(state) +
                                          " is not one of pending running succeeded failed "
                                          "cancelled expired");
  }
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
  if (r.state) j["state"] = StateName(*r.state);
  if (r.queue) j["queue"] = *r.queue;
  if (r.label) j["label"] = *r.label;
  if (r.user) j["user"] = *r.user;
  if (r.command) j["command"] = *r.command;
  if (r.before_id) j["before_id"] = *r.before_id;
  return j;
}

}  // namespace tq
