// What the chooser weighs of the ready set (SPEC 4): which end of it a draw wants, and a ready
// task as the chooser sees it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "core/model/task.h"

namespace tq {

/// Which end of the ready set the chooser wants (SPEC 4).
enum class ReadyOrder {
  kHighestPriority,  ///< lowest priority number, oldest first within it
  kOldest,           ///< oldest of any priority
};

/// A ready task as the chooser sees it, with what its claim decides before it starts it.
struct Candidate {
  TaskId id = 0;
  int priority = kDefaultPriority;
  uint32_t owner_uid = 0;
  std::string owner_name{};     ///< the account it runs as, by name as at its submit
  bool uses_units = false;      ///< it asks for resource units (spec.use)
  bool unplaced_shard = false;  ///< a shard placed on no host
};

/// Whether `a` comes before `b` in `order`.
inline bool ComesFirst(const Candidate& a, const Candidate& b, ReadyOrder order) {
  return order == ReadyOrder::kHighestPriority
             ? std::pair(a.priority, a.id) < std::pair(b.priority, b.id)
             : a.id < b.id;
}

}  // namespace tq
