// `tqd --check-config` and tqd's start on the store's URI (SPEC 12): refused as libpq refuses it,
// before any connection, and named with its password hidden.
#pragma once

#include <string>

#include "core/model/status.h"

namespace tq {

/// Whether libpq reads `conninfo` (PQconninfoParse, the parser the store's connections use);
/// never connects. A refusal is kConfig on field "store" naming the value with its passwords
/// hidden (RedactConninfo), libpq's reason (likewise) and the form of a URI libpq reads.
Status CheckConninfo(const std::string& conninfo);

}  // namespace tq
