// Who may use a queue (allow_users, allow_groups): a table of callers against queue rules.
#include "core/policy/queue_access.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace tq;

TEST_CASE("queue access: the listed users, the listed groups' members and admins only") {
  const QueueUsers open;
  QueueUsers fast;
  fast.restricted = true;
  fast.users = {"alice"};
  fast.groups = {"ops"};
  QueueUsers admins_only;
  admins_only.restricted = true;  // allow_users = []
  struct Case {
    const char* name;
    const QueueUsers& rules;
    std::string user;
    bool admin;
    std::vector<std::string> groups;
    bool allowed;
  };
  const std::vector<Case> cases = {
      {"an open queue takes anyone", open, "mallory", false, {}, true},
      {"a listed user", fast, "alice", false, {}, true},
      {"a member of a listed group", fast, "carol", false, {"ops"}, true},
      {"someone else", fast, "mallory", false, {"users"}, false},
      {"a name is not a prefix match", fast, "alice2", false, {}, false},
      {"an admin always", fast, "root", true, {}, true},
      {"an empty list keeps all but admins out", admins_only, "alice", false, {"ops"}, false},
      {"an empty list: admins still", admins_only, "carol", true, {}, true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const Status s = CheckQueueUse("fast", c.rules, c.user, c.admin, [&](const std::string& g) {
      return std::find(c.groups.begin(), c.groups.end(), g) != c.groups.end();
    });
    CHECK(s.ok() == c.allowed);
    if (!c.allowed) {
      CHECK(s.code() == ErrorCode::kPermission);
      CHECK(s.field() == "queue");
      CHECK(s.message().find("queue: \"fast\" is not open to \"" + c.user + "\"") == 0);
    }
  }
}

TEST_CASE("queue access: the refusal lists who may use the queue") {
  QueueUsers fast;
  fast.restricted = true;
  fast.users = {"alice", "bob"};
  const Status s =
      CheckQueueUse("fast", fast, "eve", false, [](const std::string&) { return false; });
  CHECK(s.message() ==
        "queue: \"fast\" is not open to \"eve\" (its allow_users in tqd.toml: alice, bob; "
        "allow_groups: none; and the admins)");
}
