// The submits of one turn of the event loop, committed together: concurrent submitters share
// one transaction and one sync, that of the dispatch turn which can start them, and each is
// answered after it.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/model/clock.h"
#include "core/model/status.h"
#include "core/store/store.h"
#include "daemon/serve/server.h"
#include "daemon/users/user_limits_gate.h"

namespace tq {

/// Gathers this loop turn's submits and stores them in the next dispatch turn's transaction.
class GroupCommit {
 public:
  /// Answers one submit of a committed group on its connection with its outcome.
  using Answer =
      std::function<void(ConnId conn, const SubmitItem& item, const Result<SubmitOutcome>&)>;
  /// Has the first function run inside the next dispatch turn's transaction and the second told
  /// whether it committed (Dispatcher::JoinNextTurn).
  using JoinTurn =
      std::function<void(std::function<void()> in_turn, std::function<void(const Status&)> after)>;

  GroupCommit(const Clock& clock, Store& store, UserLimitsGate& limits, Answer answer,
              JoinTurn join)
      : clock_(clock),
        store_(store),
        limits_(limits),
        answer_(std::move(answer)),
        join_(std::move(join)) {}

  /// Adds a submit from `peer` on `conn` to this turn's group.
  void Add(ConnId conn, const Owner& peer, TaskSpec spec, bool supersede_running);
  /// Refuses `count` new tasks of `peer` that their limits forbid, counting the submits of
  /// theirs in this turn's group too (UserLimitsGate::Admit).
  Status Admit(const Owner& peer, int64_t count);

 private:
  /// Stores the group, inside the dispatch turn's transaction.
  void StoreGroup();
  /// Answers each submit of the group: its outcome once `committed`, else why not.
  void AnswerAll(const Status& committed);

  const Clock& clock_;
  Store& store_;
  UserLimitsGate& limits_;
  Answer answer_;
  JoinTurn join_;
  // This loop turn's submits: who asked, what, and (once stored) what became of each.
  std::vector<ConnId> conns_;
  std::vector<SubmitItem> items_;
  std::vector<Result<SubmitOutcome>> outcomes_;
};

}  // namespace tq
