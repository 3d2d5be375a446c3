// The chooser of SPEC 4 and 8: for each free slot, 80% of draws take the highest-priority ready
// task, the rest take the oldest ready task of any priority, so nothing waits forever. Within
// the highest priority the pick is fair across users: the user with the fewest running tasks
// goes first, and of those the one served least recently, so one user's flood never starves
// another's few, even when a small cap leaves every user at 0 running each time a slot frees.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "core/model/ready_order.h"

namespace tq {

/// A uniform random number in [0, 1); injected so tests are deterministic.
using UniformSource = std::function<double()>;

/// One user's first ready task in an order, with what the fair pick weighs.
struct OwnerCandidate {
  Candidate first;           ///< the owner's first ready task in the drawn order
  int running = 0;           ///< the owner's running attempts
  uint64_t last_served = 0;  ///< when the owner last had a task started (ServedLog); 0: never
};

/// When each owner last had a task started, as a count of starts: the fair pick serves the
/// owner served least recently first. Kept in memory; a restart begins everyone afresh.
class ServedLog {
 public:
  /// Records that `owner_uid` had a task started now.
  void Served(uint32_t owner_uid) { last_[owner_uid] = ++starts_; }
  /// The count of starts at `owner_uid`'s last start; 0 when never served.
  uint64_t LastServed(uint32_t owner_uid) const {
    auto it = last_.find(owner_uid);
    return it == last_.end() ? 0 : it->second;
  }

 private:
  std::map<uint32_t, uint64_t> last_;
  uint64_t starts_ = 0;
};

/// Where the chooser finds candidates: for each user who may start a task now, their first ready
/// task in each order among the queues that have a free slot. The daemon backs it with the
/// store's indexes; tests with a vector.
class ReadySource {
 public:
  virtual ~ReadySource() = default;
  /// Each eligible owner's first ready task in `order` (any order of owners).
  virtual std::vector<OwnerCandidate> FirstPerOwner(ReadyOrder order) = 0;
};

/// Which branch a draw takes: kHighestPriority with probability `high_share`, else kOldest.
ReadyOrder DrawOrder(double high_share, const UniformSource& uniform);

/// The pick among the owners' first tasks in `order`: kOldest takes the oldest; kHighestPriority
/// takes, among the owners whose first task has the best priority, the one with the fewest
/// running tasks, then the one served least recently, and of those the oldest task.
std::optional<Candidate> ChooseAmong(const std::vector<OwnerCandidate>& owners, ReadyOrder order);

/// Picks the task for one free slot: draws the branch and chooses among the owners' first tasks
/// in that order. Both orders see the same ready set, so when one task is ready either draw
/// picks it.
std::optional<Candidate> PickNext(ReadySource& ready, double high_share,
                                  const UniformSource& uniform);

}  // namespace tq
