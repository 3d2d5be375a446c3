// The tasks a verb that acts on many tasks acts on: a TaskSelector resolved by the daemon, as
// far as its caller may act on them.
#include <algorithm>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "daemon/handlers/handlers.h"
#include "daemon/users/accounts.h"

namespace tq {

namespace {
// Tasks read per page of a selection by filters.
constexpr int kSelectPage = 1000;
}  // namespace

Result<std::optional<uint32_t>> OwnerFilterFor(RequestContext& ctx, const Owner& peer,
                                               const std::optional<std::string>& user,
                                               const char* verb, bool everyone_by_default) {
  const std::optional<uint32_t> owner_uid = ctx.access.For(peer).OwnerFilter();
  if (!user) return everyone_by_default ? owner_uid : std::optional<uint32_t>(peer.uid);
  if (*user == peer.name) return std::optional<uint32_t>(peer.uid);
  if (owner_uid)
    return Status(ErrorCode::kPermission, "user",
                  "user: only admins may " + std::string(verb) + " another user's tasks (" +
                      Quote(*user) + ")");
  auto owner = OwnerNamed(*user);
  if (!owner.ok()) return owner.status();
  if (!owner->has_value()) return Status::NotFound("there is no user " + Quote(*user));
  return std::optional<uint32_t>((*owner)->uid);
}

Status ForEachSelected(RequestContext& ctx, const Owner& peer, const TaskSelector& select,
                       const std::vector<TaskState>& defaults, const char* verb,
                       const std::function<Status(const std::vector<Task>&)>& page) {
  if (!select.ByFilter()) {
    auto tasks = VisibleTasks(ctx, peer, select.ids);
    if (!tasks.ok()) return tasks.status();
    return page(*tasks);
  }
  auto owner_uid = OwnerFilterFor(ctx, peer, select.user, verb, false);
  if (!owner_uid.ok()) return owner_uid.status();
  for (TaskState state : select.states.empty() ? defaults : select.states) {
    ListFilter filter;
    filter.owner_uid = *owner_uid;
    filter.states = {state};
    filter.queue = select.queue;
    filter.label = select.label;
    filter.limit = kSelectPage;
    for (;;) {
      auto tasks = ctx.store.List(filter);
      if (!tasks.ok()) return tasks.status();
      if (tasks->empty()) break;
      if (Status s = page(*tasks); !s.ok()) return s;
      if (tasks->size() < static_cast<size_t>(kSelectPage)) break;
      filter.before_id = tasks->back().id;  // newest first: the next page is older
    }
  }
  return Status::Ok();
}

Result<std::vector<Task>> SelectedTasks(RequestContext& ctx, const Owner& peer,
                                        const TaskSelector& select,
                                        const std::vector<TaskState>& defaults, const char* verb) {
  std::vector<Task> all;
  const Status st = ForEachSelected(
      ctx, peer, select, defaults, verb, [&](const std::vector<Task>& tasks) -> Status {
        if (all.size() + tasks.size() > kMaxWaitIds)
          return Status(
              ErrorCode::kLimit, "ids",
              "the filters match more than " + std::to_string(kMaxWaitIds) + " tasks; narrow them");
        all.insert(all.end(), tasks.begin(), tasks.end());
        return Status::Ok();
      });
  if (!st.ok()) return st;
  if (select.ByFilter())
    std::sort(all.begin(), all.end(), [](const Task& a, const Task& b) { return a.id < b.id; });
  return all;
}

std::vector<TaskId> IdsOf(const std::vector<Task>& tasks) {
  std::vector<TaskId> ids;
  ids.reserve(tasks.size());
  for (const Task& t : tasks) ids.push_back(t.id);
  return ids;
}

}  // namespace tq
