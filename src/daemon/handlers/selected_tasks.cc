// The tasks a verb that acts on many tasks acts on: a TaskSelector resolved by the daemon, as
// far as its caller may act on them.
#include <algorithm>
#include <memory>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "daemon/handlers/handlers.h"
#include "daemon/users/accounts.h"

namespace tq {

namespace {

// Tasks read per pass of the loop when a selection by filters is walked: a few milliseconds of
// reading, after which the requests that came meanwhile are served.
constexpr int kWalkPage = 250;

// A selection by filters being walked: the states left to read, and where in the current one.
struct Walk {
  RequestContext& ctx;
  std::vector<TaskState> states;
  size_t state = 0;
  ListFilter filter;
  SelectedPage page;
  SelectionDone done;
};

// Reads the next page of `walk` and hands it on; the one after it waits for the next pass of
// the loop.
void WalkOn(const std::shared_ptr<Walk>& walk) {
  Walk& w = *walk;
  while (w.state < w.states.size()) {
    w.filter.states = {w.states[w.state]};
    auto tasks = w.ctx.store.List(w.filter);
    if (!tasks.ok()) return w.done(tasks.status());
    if (tasks->size() < static_cast<size_t>(kWalkPage)) {
      ++w.state;
      w.filter.before_id.reset();
    } else {
      w.filter.before_id = tasks->back().id;  // newest first: the next page is older
    }
    if (tasks->empty()) continue;
    if (Status s = w.page(*tasks); !s.ok()) return w.done(s);
    w.ctx.loop.Defer(nullptr, [walk] { WalkOn(walk); });
    return;
  }
  w.done(Status::Ok());
}

// InSlices from `from` on.
void SliceOn(RequestContext& ctx, std::shared_ptr<const std::vector<TaskId>> ids, size_t size,
             size_t from, std::function<Status(const std::vector<TaskId>&)> slice,
             SelectionDone done) {
  if (from >= ids->size()) return done(Status::Ok());
  const size_t to = std::min(ids->size(), from + size);
  const std::vector<TaskId> part(ids->begin() + static_cast<std::ptrdiff_t>(from),
                                 ids->begin() + static_cast<std::ptrdiff_t>(to));
  if (Status st = slice(part); !st.ok()) return done(st);
  if (to == ids->size()) return done(Status::Ok());
  ctx.loop.Defer(nullptr, [&ctx, ids = std::move(ids), size, to, slice = std::move(slice),
                           done = std::move(done)]() mutable {
    SliceOn(ctx, std::move(ids), size, to, std::move(slice), std::move(done));
  });
}

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

void WalkSelected(RequestContext& ctx, ConnId conn, const Owner& peer, const TaskSelector& select,
                  const std::vector<TaskState>& defaults, const char* verb, SelectedPage page,
                  SelectionDone done) {
  if (!select.ByFilter()) {
    auto tasks = VisibleTasks(ctx, peer, select.ids);
    return done(tasks.ok() ? page(*tasks) : tasks.status());
  }
  auto owner_uid = OwnerFilterFor(ctx, peer, select.user, verb, false);
  if (!owner_uid.ok()) return done(owner_uid.status());
  ctx.server.SetBusy(conn, true);
  auto walk = std::make_shared<Walk>(Walk{ctx, select.states.empty() ? defaults : select.states, 0,
                                          ListFilter{}, std::move(page),
                                          [&ctx, conn, done = std::move(done)](const Status& st) {
                                            ctx.server.SetBusy(conn, false);
                                            done(st);
                                          }});
  walk->filter.owner_uid = *owner_uid;
  walk->filter.queue = select.queue;
  walk->filter.label = select.label;
  walk->filter.limit = kWalkPage;
  WalkOn(walk);
}

void SelectTasks(RequestContext& ctx, ConnId conn, const Owner& peer, const TaskSelector& select,
                 const std::vector<TaskState>& defaults, const char* verb,
                 std::function<void(Result<std::vector<Task>>)> then) {
  auto all = std::make_shared<std::vector<Task>>();
  WalkSelected(
      ctx, conn, peer, select, defaults, verb,
      [all](const std::vector<Task>& tasks) -> Status {
        if (all->size() + tasks.size() > kMaxWaitIds)
          return Status(
              ErrorCode::kLimit, "ids",
              "the filters match more than " + std::to_string(kMaxWaitIds) + " tasks; narrow them");
        all->insert(all->end(), tasks.begin(), tasks.end());
        return Status::Ok();
      },
      [all, by_filter = select.ByFilter(), then = std::move(then)](const Status& st) {
        if (!st.ok()) return then(st);
        if (by_filter)
          std::sort(all->begin(), all->end(),
                    [](const Task& a, const Task& b) { return a.id < b.id; });
        then(std::move(*all));
      });
}

void InSlices(RequestContext& ctx, std::vector<TaskId> ids, size_t size,
              std::function<Status(const std::vector<TaskId>&)> slice, SelectionDone done) {
  SliceOn(ctx, std::make_shared<const std::vector<TaskId>>(std::move(ids)), size, 0,
          std::move(slice), std::move(done));
}

std::vector<TaskId> IdsOf(const std::vector<Task>& tasks) {
  std::vector<TaskId> ids;
  ids.reserve(tasks.size());
  for (const Task& t : tasks) ids.push_back(t.id);
  return ids;
}

}  // namespace tq
