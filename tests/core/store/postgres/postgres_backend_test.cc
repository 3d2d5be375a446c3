// Registers the PostgreSQL store as a backend of the store's conformance suite
// (tests/core/store/*_test.cc run against it) where PostgreSQL's server is installed: each store
// in a fresh schema of the test process's own server (support/pg_server.h).
#include <string>

#include "core/store/conformance.h"
#include "core/store/postgres/open.h"
#include "support/pg_server.h"

namespace tq::test {
namespace {

[[maybe_unused]] const bool kRegistered =
    PgServer::Installed() && RegisterStoreBackend("postgres", []() -> std::unique_ptr<Store> {
      std::string why;
      PgServer* server = PgServer::Get(&why);
      REQUIRE_MESSAGE(server != nullptr, why);
      const std::string conninfo = server->FreshSchema();
      REQUIRE_FALSE(conninfo.empty());
      Result<std::unique_ptr<Store>> store = OpenPostgresStore(conninfo, false);
      REQUIRE_MESSAGE(store.ok(), store.status().message());
      return std::move(*store);
    });

}  // namespace
}  // namespace tq::test
