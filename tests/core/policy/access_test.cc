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
    const Access a = AccessOf(Owner{c.peer, 100, "someone"}, c.daemon);
    CHECK(a.admin == c.admin);
    CHECK(a.uid == c.peer);
    CHECK(a.Sees(c.owner) == c.sees);
    CHECK(a.OwnerFilter() == c.filter);
  }
}

}  // namespace
}  // namespace tq
