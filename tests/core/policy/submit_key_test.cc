#include "core/policy/submit_key.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

using S = TaskState;

// Every row of SPEC 3's table, plus the corners between rows.
TEST_CASE("keyed submit follows every row of SPEC 3") {
  struct Case {
    const char* row;
    std::vector<KeyedTask> held;
    int64_t version;
    bool supersede_running;
    KeyAction action;
    TaskId existing;
    std::vector<TaskId> cancel_pending, cancel_running;
  };
  const Case cases[] = {
      {"nothing", {}, 1, false, KeyAction::kInsert, 0, {}, {}},
      {"a higher version", {{5, 3, S::kSucceeded}}, 2, false, KeyAction::kRefuseNewer, 5, {}, {}},
      {"the newest of several higher",
       {{5, 3, S::kFailed}, {6, 4, S::kPending}},
       2,
       false,
       KeyAction::kRefuseNewer,
       6,
       {},
       {}},
      {"same, running", {{5, 2, S::kRunning}}, 2, false, KeyAction::kReturnExisting, 5, {}, {}},
      {"same, succeeded", {{5, 2, S::kSucceeded}}, 2, false, KeyAction::kReturnExisting, 5, {}, {}},
      {"same, pending", {{5, 2, S::kPending}}, 2, false, KeyAction::kReplace, 5, {}, {}},
      {"same, failed", {{5, 2, S::kFailed}}, 2, false, KeyAction::kReplace, 5, {}, {}},
      {"same, cancelled", {{5, 2, S::kCancelled}}, 2, false, KeyAction::kReplace, 5, {}, {}},
      {"same, expired", {{5, 2, S::kExpired}}, 2, false, KeyAction::kReplace, 5, {}, {}},
      {"lower pending", {{5, 1, S::kPending}}, 2, false, KeyAction::kInsert, 0, {5}, {}},
      {"lower running", {{5, 1, S::kRunning}}, 2, false, KeyAction::kInsert, 0, {}, {}},
      {"lower running, superseded", {{5, 1, S::kRunning}}, 2, true, KeyAction::kInsert, 0, {}, {5}},
      {"lower terminal",
       {{5, 1, S::kFailed}, {6, 1, S::kSucceeded}},
       2,
       false,
       KeyAction::kInsert,
       0,
       {},
       {}},
      {"lower of each kind",
       {{4, 0, S::kPending}, {5, 1, S::kRunning}, {6, 1, S::kCancelled}},
       2,
       true,
       KeyAction::kInsert,
       0,
       {4},
       {5}},
      {"replace also supersedes lower pending",
       {{4, 1, S::kPending}, {5, 2, S::kFailed}},
       2,
       false,
       KeyAction::kReplace,
       5,
       {4},
       {}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.row);
    const KeyDecision d = DecideKeyedSubmit(c.held, c.version, c.supersede_running);
    CHECK(d.action == c.action);
    CHECK(d.existing == c.existing);
    CHECK(d.cancel_pending == c.cancel_pending);
    CHECK(d.cancel_running == c.cancel_running);
  }
}

}  // namespace
}  // namespace tq
