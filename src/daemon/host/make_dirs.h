// Creating the daemon's directories on a fresh account, where their parents may not exist yet.
#pragma once

#include <sys/types.h>
#include <string>

#include "core/model/status.h"

namespace tq {

/// Creates `path` and every missing parent with `mode` (like `mkdir -p -m MODE`); directories
/// that already exist are left as they are. Fails with kConfig naming the directory and errno.
Status MakeDirs(const std::string& path, mode_t mode);

}  // namespace tq
