// Who holds which resource units (SPEC 14).
#pragma once

#include <cstdint>

#include "core/model/task.h"
#include "core/model/unit_use.h"

namespace tq {

/// A running attempt's resource units (SPEC 14).
struct UnitHolder {
  TaskId task = 0;
  uint32_t owner_uid = 0;
  UnitGrant units;
};

}  // namespace tq
