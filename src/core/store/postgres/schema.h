// The PostgreSQL store's schema: the SQLite store's tables (sqlite/migrations.cc) in PostgreSQL's
// types, versioned in a table of its own. Schema version 1 is SQLite's version 14; a schema
// change lands in both stores. A released version never changes; a change is a new version.
#pragma once

#include "core/model/status.h"

namespace tq::pg {

class Db;

/// The schema version this binary writes and understands.
int CurrentSchemaVersion();

/// Brings the database `db` is connected to (its current schema, search_path's first) to the
/// current version, each step in one transaction; a fresh, empty schema is created at once.
/// Several tqd starting together take turns. Refuses, changing nothing, a schema whose version
/// is newer than this binary's, and a schema holding tables but no tq version (not a tq store).
Status Migrate(Db& db);

}  // namespace tq::pg
