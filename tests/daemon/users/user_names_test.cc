#include "daemon/users/user_names.h"

#include <doctest/doctest.h>

#include "support/fake_clock.h"

namespace tq {

TEST_CASE("user names are looked up once per uid and again after their ttl") {
  FakeClock clock;
  int lookups = 0;
  UserNameCache names(clock, 60000, [&](uint32_t uid) {
    ++lookups;
    return "user" + std::to_string(uid) + "-" + std::to_string(lookups);
  });
  CHECK(names.Name(1000) == "user1000-1");
  for (int i = 0; i < 100; ++i) CHECK(names.Name(1000) == "user1000-1");
  CHECK(names.Name(1001) == "user1001-2");
  CHECK(lookups == 2);
  clock.Advance(60000);
  CHECK(names.Name(1000) == "user1000-3");
  CHECK(lookups == 3);
}

TEST_CASE("a uid without a password entry is named by its number") {
  CHECK(LookUpUserName(0) == "root");
  CHECK(LookUpUserName(3999999) == "3999999");
}

}  // namespace tq
