#include "daemon/serve/connection_slots.h"

#include <doctest/doctest.h>

namespace tq {

namespace {
constexpr uint32_t kSlotOwner = 1000;
}  // namespace

TEST_CASE("connection slots bound each other user and keep the last slots for root and owner") {
  ConnectionSlots slots(/*total=*/10, /*per_uid=*/3, /*owner_reserve=*/2, kSlotOwner);
  for (int i = 0; i < 3; ++i) REQUIRE(slots.Admit(2001).ok());
  const Status per_user = slots.Admit(2001);
  CHECK(per_user.code() == ErrorCode::kLimit);
  CHECK(per_user.field() == "connections");
  CHECK(per_user.message() ==
        "connections: uid 2001 already has 3 connections open (at most 3 per user)");
  for (int i = 0; i < 3; ++i) REQUIRE(slots.Admit(2002).ok());
  REQUIRE(slots.Admit(2003).ok());
  REQUIRE(slots.Admit(2003).ok());
  // 8 open: the two left are the owner's and root's.
  const Status shared = slots.Admit(2004);
  CHECK(shared.code() == ErrorCode::kLimit);
  CHECK(shared.message() ==
        "connections: the daemon already serves 8 clients (at most 8 for uid 2004)");
  CHECK(!slots.Full());
  REQUIRE(slots.Admit(0).ok());
  REQUIRE(slots.Admit(kSlotOwner).ok());
  CHECK(slots.Full());
  CHECK(slots.Admit(0).message() ==
        "connections: the daemon already serves 10 clients (at most 10)");
  CHECK(slots.open() == 10);
  CHECK(slots.OpenBy(2001) == 3);

  slots.Release(2001);
  CHECK(!slots.Full());
  CHECK(slots.OpenBy(2001) == 2);
  CHECK(slots.Admit(2004).code() == ErrorCode::kLimit);  // still within the reserve
  REQUIRE(slots.Admit(kSlotOwner).ok());
  slots.Release(4242);  // never admitted: ignored
  CHECK(slots.open() == 10);
}

TEST_CASE("root and the daemon's own user have no per-user bound") {
  ConnectionSlots slots(/*total=*/100, /*per_uid=*/2, /*owner_reserve=*/4, kSlotOwner);
  for (int i = 0; i < 50; ++i) REQUIRE(slots.Admit(0).ok());
  for (int i = 0; i < 50; ++i) REQUIRE(slots.Admit(kSlotOwner).ok());
  CHECK(slots.Full());
}

}  // namespace tq
