// The two databases the SQL store speaks to. Internal to the SQL store.
#pragma once

namespace tq::sql {

/// How the two databases spell what SQL leaves to each (statements.cc, task_rows.cc).
enum class Dialect { kSqlite, kPostgres };

}  // namespace tq::sql
