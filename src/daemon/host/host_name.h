// The name this tqd goes by in its store (SPEC 12): tqd.toml's `host`, else the machine's.
#pragma once

#include <string>

#include "core/config/config.h"
#include "core/model/status.h"

namespace tq {

/// `config.host` when set, else the machine's hostname (gethostname(2)); a hostname that is no
/// host name tq accepts is a configuration error asking for `host` in tqd.toml.
Result<std::string> ThisHostName(const Config& config);

}  // namespace tq
