// Registers the SQLite store as a backend of the store's conformance suite
// (tests/core/store/*_test.cc run against it): in memory, and two stores over one file (as two
// tqd would open it) in a directory the test process removes at exit.
#include <string>

#include "core/store/conformance.h"
#include "core/store/sqlite/test_util.h"
#include "support/temp_dir.h"

namespace tq::test {
namespace {

StorePair OpenPairOfFile() {
  static TempDir dir("sqlite-pair");
  static int made = 0;
  const std::string path = dir.File("pair-" + std::to_string(++made) + ".db");
  std::unique_ptr<Store> first = OpenSqlite(path);
  std::unique_ptr<Store> second = OpenSqlite(path);
  return {std::move(first), std::move(second)};
}

[[maybe_unused]] const bool kRegistered = RegisterStoreBackend(
    "sqlite",
    [] {
      std::unique_ptr<Store> store = OpenSqlite();
      return store;
    },
    OpenPairOfFile);

}  // namespace
}  // namespace tq::test
