// What a write tells or does outside the store (SPEC 6: effects follow commits): the events,
// answers, signals and counters of a change, kept while its transaction is open and run only
// once it commits; a rollback drops them.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace tq {

/// The effects of the transaction under way, in the order they were added.
class Outbox {
 public:
  /// Keeps `effect` until Deliver or Drop.
  void Add(std::function<void()> effect) { effects_.push_back(std::move(effect)); }
  /// The transaction committed: runs every effect kept, in order, and forgets them.
  void Deliver() {
    std::vector<std::function<void()>> effects = std::move(effects_);
    effects_.clear();
    for (auto& effect : effects) effect();
  }
  /// The transaction rolled back: forgets every effect kept without running it.
  void Drop() { effects_.clear(); }

 private:
  std::vector<std::function<void()>> effects_;
};

}  // namespace tq
