// A host's name in a store several tqd share (SPEC 12): tqd.toml's `host`, else the machine's
// hostname. It names the host's row, its attempts and its lock in the store.
#pragma once

#include <string>

#include "core/model/status.h"

namespace tq {

/// A host name has 1 to this many characters.
constexpr size_t kMaxHostName = 64;

/// Checks a host name given as `field`: 1..kMaxHostName letters, digits, '.', '_' and '-', not
/// starting with '.' or '-'; the refusal names the field, the value and what is allowed.
Status CheckHostName(const char* field, const std::string& name);

}  // namespace tq
