// Helpers for the SQLite-only tests of the store (migrations, faults, plans, files): an
// SqliteStore with its test hooks, besides the Store helpers of ../test_util.h.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/store/sqlite/sqlite_store.h"
#include "core/store/test_util.h"

namespace tq::test {

/// An SQLite store at `path` (in memory by default) with durability normal.
inline std::unique_ptr<SqliteStore> OpenSqlite(const std::string& path = ":memory:") {
  Result<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(path, /*durability_full=*/false);
  REQUIRE_MESSAGE(store.ok(), store.status().message());
  return std::move(*store);
}

}  // namespace tq::test
