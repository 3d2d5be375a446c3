// How the daemon (and tests that need a real file) open the SQLite store, without seeing the
// SqliteStore class: the Store interface comes back.
#pragma once

#include <memory>
#include <string>

#include "core/model/status.h"
#include "core/store/store.h"

namespace tq {

/// Opens (creating or migrating) the SQLite store at `path`. `durability_full` selects
/// synchronous=FULL (the default) over NORMAL.
Result<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, bool durability_full);

}  // namespace tq
