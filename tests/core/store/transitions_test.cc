// The transition table of model/task.h walked through the store: for every state and every
// event, a task is driven into the state through the Store interface and each operation that
// implements the event is tried. An operation may move the task only where the table allows,
// and then to the table's state; where the table allows, one of them does. So the store's
// guards (SQL WHERE clauses in SQLite) and the table cannot drift apart.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace test;  // NOLINT: the shared helpers of the store's tests

constexpr TaskState kStates[] = {TaskState::kPending, TaskState::kRunning,   TaskState::kSucceeded,
                                 TaskState::kFailed,  TaskState::kCancelled, TaskState::kExpired};
constexpr TaskEvent kEvents[] = {TaskEvent::kStart,   TaskEvent::kSucceed, TaskEvent::kFail,
                                 TaskEvent::kCancel,  TaskEvent::kRetry,   TaskEvent::kUnstart,
                                 TaskEvent::kRequeue, TaskEvent::kReplace, TaskEvent::kExpire,
                                 TaskEvent::kAdvance};

// Far past every time used below: any cutoff or sweep reaches every task.
constexpr WallMs kLater = 1'000'000;

// A keyed task (key "walk", version 1, a pending ttl, two stages) driven into `state` through the
// store: a ready pending task, or one that ran once.
TaskId TaskIn(Store& store, TaskState state) {
  TaskSpec spec = Keyed("walk", 1);
  spec.pending_ttl_ms = 1000;
  spec.stages = {{"first", spec.argv, std::nullopt, std::nullopt, {}},
                 {"second", spec.argv, std::nullopt, std::nullopt, {}}};
  spec.argv.clear();
  const TaskId id = MustSubmit(store, kAlice, spec, 1000).id;
  switch (state) {
    case TaskState::kPending:
      break;
    case TaskState::kRunning:
      MustStart(store, id, 2000);
      break;
    case TaskState::kSucceeded:
    case TaskState::kFailed:
      StartAndFinish(store, id, state, 2000);
      break;
    case TaskState::kCancelled:
      REQUIRE(store.EndPending(id, state, TaskReason::kCancelled, 2000).ok());
      break;
    case TaskState::kExpired: {
      StartAndFinish(store, id, TaskState::kSucceeded, 2000);
      auto expired = store.ExpireSucceeded(kLater, 10);
      REQUIRE(expired.ok());
      REQUIRE(*expired == std::vector<TaskId>{id});
      break;
    }
  }
  REQUIRE(StateOf(store, id) == state);
  return id;
}

// True when `r` is ok and `moved` says the call changed the task; a refusal must be a refusal,
// not a store fault.
template <typename T>
bool Moved(const Result<T>& r, const std::function<bool(const T&)>& moved) {
  if (!r.ok()) {
    CHECK_MESSAGE(r.status().fault() == StoreFault::kNone, r.status().message());
    return false;
  }
  return moved(*r);
}
bool Moved(const Status& s) {
  return Moved<bool>(s.ok() ? Result<bool>(true) : Result<bool>(s), [](bool) { return true; });
}
bool Lists(const std::vector<TaskId>& ids, TaskId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// One store operation that implements an event: true when it moved task `id`.
struct Operation {
  const char* name;
  std::function<bool(Store&, TaskId)> apply;
};

// The attempt a call about the task's current attempt names (1 for one that never ran).
int AttemptOf(Store& store, TaskId id) {
  return std::max(1, MustGet(store, id).attempt_count);
}

AttemptOutcome Cancelled() {
  AttemptOutcome out = Exited(3000, -1);
  out.reason = AttemptReason::kCancelled;
  return out;
}

std::vector<Operation> OperationsFor(TaskEvent event) {
  using Ids = std::vector<TaskId>;
  auto finish = [](TaskState state, AttemptOutcome out) {
    return [state, out](Store& s, TaskId id) {
      return Moved<Ids>(
          s.FinishAttempt(id, AttemptOf(s, id), out, state, TaskReasonForAttempt(out.reason)),
          [](const Ids&) { return true; });
    };
  };
  auto end_pending = [](TaskState state, TaskReason reason) {
    return [state, reason](Store& s, TaskId id) {
      return Moved<Ids>(s.EndPending(id, state, reason, 3000),
                        [id](const Ids& ended) { return Lists(ended, id); });
    };
  };
  switch (event) {
    case TaskEvent::kStart:
      return {{"StartAttempt", [](Store& s, TaskId id) {
                 return Moved<std::optional<int>>(
                     s.StartAttempt(id, 3000, {}),
                     [](const std::optional<int>& n) { return n.has_value(); });
               }}};
    case TaskEvent::kSucceed:
      return {{"FinishAttempt succeeded", finish(TaskState::kSucceeded, Exited(3000, 0))}};
    case TaskEvent::kFail:
      return {{"FinishAttempt failed", finish(TaskState::kFailed, Exited(3000, 1))},
              {"EndPending failed", end_pending(TaskState::kFailed, TaskReason::kDependencyFailed)},
              {"ExpirePendingTtl", [](Store& s, TaskId id) {
                 return Moved<Ids>(s.ExpirePendingTtl(kLater, 10),
                                   [id](const Ids& ended) { return Lists(ended, id); });
               }}};
    case TaskEvent::kCancel:
      return {{"FinishAttempt cancelled", finish(TaskState::kCancelled, Cancelled())},
              {"EndPending cancelled", end_pending(TaskState::kCancelled, TaskReason::kCancelled)}};
    case TaskEvent::kRetry:
      return {{"RetryLater", [](Store& s, TaskId id) {
                 return Moved(s.RetryLater(id, AttemptOf(s, id), Exited(3000, 1), 9000, 4));
               }}};
    case TaskEvent::kUnstart:
      return {{"UnstartAttempt",
               [](Store& s, TaskId id) { return Moved(s.UnstartAttempt(id, AttemptOf(s, id))); }}};
    case TaskEvent::kRequeue:
      return {{"Requeue",
               [](Store& s, TaskId id) {
                 return Moved<bool>(s.Requeue(id, 3000), [](const bool& done) { return done; });
               }},
              {"RequeueAll", [](Store& s, TaskId id) {
                 return Moved<Ids>(s.RequeueAll({id}, 3000, false, {}),
                                   [id](const Ids& done) { return Lists(done, id); });
               }}};
    case TaskEvent::kReplace:
      return {{"Submit of the same key and version", [](Store& s, TaskId id) {
                 return Moved<SubmitOutcome>(
                     s.Submit(kAlice, Keyed("walk", 1, {"replaced"}), 3000, false),
                     [id](const SubmitOutcome& out) { return out.inserted && out.id == id; });
               }}};
    case TaskEvent::kAdvance:
      return {{"AdvanceStage", [](Store& s, TaskId id) {
                 return Moved(s.AdvanceStage(id, AttemptOf(s, id), Exited(3000, 0)));
               }}};
    case TaskEvent::kExpire:
      return {{"ExpireSucceeded", [](Store& s, TaskId id) {
                 return Moved<Ids>(s.ExpireSucceeded(kLater, 10),
                                   [id](const Ids& ended) { return Lists(ended, id); });
               }}};
  }
  return {};
}

STORE_TEST_CASE(
    "every transition the table allows the store makes, and every other one it refuses") {
  for (TaskState from : kStates) {
    for (TaskEvent event : kEvents) {
      CAPTURE(StateName(from));
      CAPTURE(EventName(event));
      const Result<TaskState> to = Transition(from, event);
      bool some_moved = false;
      for (const Operation& op : OperationsFor(event)) {
        CAPTURE(op.name);
        auto store = OpenStore();
        const TaskId id = TaskIn(*store, from);
        if (op.apply(*store, id)) {
          some_moved = true;
          CHECK(to.ok());
          if (to.ok()) CHECK(StateName(StateOf(*store, id)) == std::string(StateName(*to)));
        } else {
          CHECK(StateName(StateOf(*store, id)) == std::string(StateName(from)));
        }
      }
      CHECK(some_moved == to.ok());
    }
  }
}

}  // namespace
}  // namespace tq
