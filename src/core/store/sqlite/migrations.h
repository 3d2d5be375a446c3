// Versioned storage: the ordered schema migrations of the SQLite store, keyed by
// `PRAGMA user_version`. Migration N takes a database from version N-1 to N inside one
// transaction. A released migration never changes; a schema change is a new migration (and a
// fixture of the old schema in tests/data/ with a test that migrates it).
#pragma once

#include <string>

#include "core/model/status.h"

namespace tq {

namespace sqlite {
class Db;
}

/// The schema version this binary writes and understands.
int CurrentSchemaVersion();

/// Brings the database open as `db` (file `path`, or ":memory:") to schema `target` (by default
/// the current one). A fresh, empty database is created at once. Before migrating an existing
/// database it is copied to `<path>.bak-v<old version>`. Refuses, changing nothing, a database
/// whose version is newer than this binary supports, and a non-empty database without a version
/// (not a tq store). Must run before the store prepares its statements, outside any
/// transaction; foreign keys are checked, not enforced, while it runs.
Status Migrate(sqlite::Db& db, const std::string& path, int target = CurrentSchemaVersion());

/// The name of the copy Migrate makes before migrating from `version`: "<path>.bak-v<version>".
std::string BackupPath(const std::string& path, int version);

}  // namespace tq
