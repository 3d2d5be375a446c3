// Registers the SQLite store, in memory, as a backend of the store's conformance suite
// (tests/core/store/*_test.cc run against it).
#include "core/store/conformance.h"
#include "core/store/sqlite/test_util.h"

namespace tq::test {
namespace {

[[maybe_unused]] const bool kRegistered = RegisterStoreBackend("sqlite", [] {
  std::unique_ptr<Store> store = OpenSqlite();
  return store;
});

}  // namespace
}  // namespace tq::test
