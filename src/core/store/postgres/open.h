// Opening the PostgreSQL store: all the daemon needs to know of it.
#pragma once

#include <memory>
#include <string>

#include "core/model/status.h"
#include "core/store/store.h"

namespace tq {

/// Connects to the PostgreSQL store at libpq's `conninfo`, creating or migrating its schema;
/// `durability_full` waits for each commit to reach the server's disk.
Result<std::unique_ptr<Store>> OpenPostgresStore(const std::string& conninfo, bool durability_full);

}  // namespace tq
