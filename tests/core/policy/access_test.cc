// The table of who sees whose tasks, and who is an admin.
#include "core/policy/access.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("AccessOf: root and the daemon's user see every task, anyone else only their own") {
  struct Case {
    uint32_t peer, daemon, owner;
    bool admin, sees;
    std::optional<uint32_t> filter;
  };
  constexpr uint32_t kDaemon = 1000;
  const Case cases[] = {
      // root, whoever runs tqd
      {0, 0, 0, true, true, std::nullopt},
      {0, kDaemon, 2000, true, true, std::nullopt},
      {0, kDaemon, kDaemon, true, true, std::nullopt},
      // the user tqd runs as
      {kDaemon, kDaemon, kDaemon, true, true, std::nullopt},
      {kDaemon, kDaemon, 2000, true, true, std::nullopt},
      {kDaemon, kDaemon, 0, true, true, std::nullopt},
      // another user: its own tasks only
      {2000, kDaemon, 2000, false, true, 2000},
      {2000, kDaemon, 2001, false, false, 2000},
      {2000, kDaemon, kDaemon, false, false, 2000},
      {2000, kDaemon, 0, false, false, 2000},
      // a system tqd (run by root): every other user is an ordinary one
      {2000, 0, 2000, false, true, 2000},
      {2000, 0, 0, false, false, 2000},
  };
  for (const Case& c : cases) {
    CAPTURE(c.peer);
    CAPTURE(c.daemon);
    CAPTURE(c.owner);
    const Access a = AccessOf(Owner{c.peer, 100, "someone"}, c.daemon, UserRules{}, false);
    CHECK(a.Allowed());
    CHECK(a.admin == c.admin);
    CHECK(a.uid == c.peer);
    CHECK(a.Sees(c.owner) == c.sees);
    CHECK(a.OwnerFilter() == c.filter);
  }
}

TEST_CASE("AccessOf: a member of admin_group sees every task") {
  const UserRules rules{"tq-admin", std::nullopt, {}};
  const Access member = AccessOf(Owner{2000, 100, "alice"}, 0, rules, true);
  CHECK(member.admin);
  CHECK(member.Sees(2001));
  CHECK(member.OwnerFilter() == std::nullopt);
  const Access other = AccessOf(Owner{2001, 100, "bob"}, 0, rules, false);
  CHECK_FALSE(other.admin);
  CHECK_FALSE(other.Sees(2000));
}

TEST_CASE("AccessOf: allow_users and deny_users, as cron.allow and cron.deny") {
  using Names = std::vector<std::string>;
  struct Case {
    const char* what;
    uint32_t uid;
    const char* name;
    std::optional<Names> allow;
    Names deny;
    const char* refusal;  // "" when let in
  };
  const Case cases[] = {
      {"no lists: everyone", 2000, "alice", std::nullopt, {}, ""},
      {"allowed by name", 2000, "alice", Names{"bob", "alice"}, {}, ""},
      {"not on allow_users",
       2000,
       "alice",
       Names{"bob"},
       {},
       "user \"alice\" (uid 2000) may not use tq: allow_users in tqd.toml does not name it"},
      {"an empty allow_users", 2000, "alice", Names{}, {}, "allow_users"},
      {"on deny_users",
       2000,
       "alice",
       std::nullopt,
       {"alice"},
       "user \"alice\" (uid 2000) may not use tq: deny_users in tqd.toml names it"},
      {"not on deny_users", 2000, "alice", std::nullopt, {"mallory"}, ""},
      {"on both", 2000, "alice", Names{"alice"}, {"alice"}, "deny_users"},
      {"a name is not a prefix", 2000, "alice", Names{"alic", "alice2"}, {}, "allow_users"},
      {"root is always in", 0, "root", Names{}, {"root"}, ""},
      {"the daemon's user is always in", 1000, "svc", Names{}, {"svc"}, ""},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.what));
    const Access a =
        AccessOf(Owner{c.uid, 100, c.name}, 1000, UserRules{"", c.allow, c.deny}, false);
    CHECK(a.Allowed() == (std::string(c.refusal).empty()));
    CHECK(a.refusal.find(c.refusal) != std::string::npos);
  }
}

}  // namespace
}  // namespace tq
