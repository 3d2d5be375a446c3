#include <algorithm>
#include <cstddef>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "daemon/handlers/handlers.h"

namespace tq {

namespace {

// True when the store holds `name`: a task was submitted to it, or tq queue changed it.
bool StoreHasQueue(Daemon& d, const std::string& name) {
  auto states = d.store().QueueStates();
  return states.ok() && std::any_of(states->begin(), states->end(),
                                    [&](const QueueState& q) { return q.name == name; });
}

// Applies a pause, resume, set or delete to an existing queue. The queue tasks go to without
// --queue always exists, as if tqd.toml named it.
Status Change(Daemon& d, const QueueRequest& r) {
  const bool is_default = r.name == TaskSpec().queue;
  const bool configured = d.config().queues.count(r.name) > 0;
  if (!is_default && !configured && !StoreHasQueue(d, r.name))
    return Status(ErrorCode::kNotFound, "name",
                  "queue " + Quote(r.name) +
                      " does not exist: a queue exists once tqd.toml names it or a task is "
                      "submitted to it");
  if (r.action == "delete") {
    if (is_default)
      return Status::Invalid("name", "queue " + Quote(r.name) +
                                         " takes every task submitted without --queue: it "
                                         "cannot be deleted");
    if (configured)
      return Status::Invalid(
          "name", "queue " + Quote(r.name) + " is named in tqd.toml: remove it there to delete it");
    return d.store().DeleteQueue(r.name);
  }
  if (r.action == "pause" || r.action == "resume")
    return d.store().SetQueuePaused(r.name, r.action == "pause");
  return d.store().SetQueueConcurrency(
      r.name, *r.concurrency == 0 ? std::nullopt : std::optional<int>(*r.concurrency));
}

}  // namespace

Caller QueueCaller(const QueueRequest& r) {
  return r.action == "list" ? Caller::kAnyUser : Caller::kAdmin;
}

void HandleQueue(Daemon& d, ConnId conn, const Owner& peer, const QueueRequest& r) {
  if (r.action != "list") {
    if (Status st = Change(d, r); !st.ok()) {
      d.server().Send(conn, ErrorResponse(st));
      return;
    }
  }
  nlohmann::json queues = d.QueuesJson(peer);
  const bool more = queues.size() > kMaxQueueList;
  if (more) queues.erase(queues.begin() + static_cast<std::ptrdiff_t>(kMaxQueueList), queues.end());
  d.server().Send(conn, OkResponse({{"queues", std::move(queues)}, {"more", more}}));
  if (r.action != "list") d.ScheduleDispatch();
}

}  // namespace tq
