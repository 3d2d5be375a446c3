#include "core/proto/requests/update.h"

#include <string>

#include "core/proto/json_read.h"
#include "core/proto/submit_spec.h"

namespace tq {

using nlohmann::json;

Result<UpdateRequest> DecodeUpdate(const json& j) {
  UpdateRequest r;
  TaskChanges& c = r.changes;
  for (Status st : {Read(j, "id", r.id, "a task id"),
                    ReadOptional(j, "priority", c.priority, "an integer 1..5"),
                    ReadOptional(j, "queue", c.queue, "a string"),
                    ReadOptional(j, "labels", c.labels, "an array of strings"),
                    ReadOptional(j, "not_before_ms", c.not_before, "milliseconds since the epoch"),
                    ReadOptional(j, "timeout_ms", c.timeout_ms, "milliseconds"),
                    ReadOptional(j, "retries", c.retries, "a count")}) {
    if (!st.ok()) return st;
  }
  if (r.id < 1) return Status::Invalid("id", "id: " + std::to_string(r.id) + " is not a task id");
  if (c.Empty())
    return Status::Invalid("changes",
                           "changes: nothing to change (priority, queue, labels, not_before_ms, "
                           "timeout_ms, retries)");
  // Each value is checked as a submit's: a request made of the changed fields must pass.
  SubmitRequest as_submit;
  as_submit.spec = c.AppliedTo(TaskSpec{});
  as_submit.spec.argv = {"true"};
  as_submit.retry.retries = c.retries;
  if (Status st = CheckSubmit(as_submit); !st.ok()) return st;
  return r;
}

json EncodeUpdate(const UpdateRequest& r) {
  const TaskChanges& c = r.changes;
  json j{{"id", r.id}};
  if (c.priority) j["priority"] = *c.priority;
  if (c.queue) j["queue"] = *c.queue;
  if (c.labels) j["labels"] = *c.labels;
  if (c.not_before) j["not_before_ms"] = *c.not_before;
  if (c.timeout_ms) j["timeout_ms"] = *c.timeout_ms;
  if (c.retries) j["retries"] = *c.retries;
  return j;
}

}  // namespace tq
