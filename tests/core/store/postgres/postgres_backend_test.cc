// Registers the PostgreSQL store as a backend of the store's conformance suite
// (tests/core/store/*_test.cc run against it) where PostgreSQL's server is installed: each store
// (or pair of stores, as two hosts' tqd open it) in a fresh schema of the test process's own
// server (support/pg_server.h).
#include <string>

#include "core/store/conformance.h"
#include "core/store/postgres/open.h"
#include "support/pg_server.h"

namespace tq::test {
namespace {

// A fresh schema of the test process's server, as a libpq conninfo.
std::string FreshConninfo() {
  std::string why;
  PgServer* server = PgServer::Get(&why);
  REQUIRE_MESSAGE(server != nullptr, why);
  const std::string conninfo = server->FreshSchema();
  REQUIRE_FALSE(conninfo.empty());
  return conninfo;
}

std::unique_ptr<Store> OpenOn(const std::string& conninfo) {
  Result<std::unique_ptr<Store>> store = OpenPostgresStore(conninfo, false);
  REQUIRE_MESSAGE(store.ok(), store.status().message());
  return std::move(*store);
}

[[maybe_unused]] const bool kRegistered =
    PgServer::Installed() && RegisterStoreBackend(
                                 "postgres", [] { return OpenOn(FreshConninfo()); },
                                 [] {
                                   const std::string conninfo = FreshConninfo();
                                   std::unique_ptr<Store> first = OpenOn(conninfo);
                                   return StorePair{std::move(first), OpenOn(conninfo)};
                                 });

}  // namespace
}  // namespace tq::test
