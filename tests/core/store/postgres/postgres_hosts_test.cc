// What the PostgreSQL store adds to the hosts of the conformance suite (SPEC 12): one session
// per host name at a time, the lock freed when that session ends.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/store/postgres/open.h"
#include "support/pg_server.h"
#include "support/skip.h"

namespace tq {
namespace {

std::unique_ptr<Store> MustOpen(const std::string& conninfo) {
  Result<std::unique_ptr<Store>> store = OpenPostgresStore(conninfo, false);
  REQUIRE_MESSAGE(store.ok(), store.status().message());
  return std::move(*store);
}

TEST_CASE("postgres: a second store joining as a host already joined is refused, naming it" *
          doctest::test_suite("long")) {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  std::unique_ptr<Store> first = MustOpen(conninfo);
  REQUIRE(first->JoinHost("web-1", "0.1.0", 2, 1000).ok());
  std::unique_ptr<Store> second = MustOpen(conninfo);
  Status refused = second->JoinHost("web-1", "0.1.0", 2, 2000);
  CHECK_FALSE(refused.ok());
  CHECK_MESSAGE(
      refused.message().find("another tqd is host web-1 on this store") != std::string::npos,
      refused.message());
  CHECK(second->JoinHost("web-2", "0.1.0", 2, 2000).ok());  // another name is another host

  first.reset();  // its session ends, and its lock with it
  std::unique_ptr<Store> third = MustOpen(conninfo);
  Status joined = third->JoinHost("web-1", "0.1.0", 2, 3000);
  CHECK_MESSAGE(joined.ok(), joined.message());
}

}  // namespace
}  // namespace tq
