// A Runner that starts no process: it records each launch and lets the test end attempts with
// the outcomes it chooses, as ninja's FakeCommandRunner does for commands.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/clock.h"
#include "daemon/run/runner.h"

namespace tq {

/// Stands in for the Executor in daemon tests; reports to the daemon's callbacks.
class FakeRunner : public Runner {
 public:
  FakeRunner(const Clock& clock, Callbacks callbacks)
      : clock_(clock), callbacks_(std::move(callbacks)) {}

  /// What makes the runner of a daemon or a dispatcher under test: a FakeRunner, with `*made`
  /// pointing at it.
  static std::function<std::unique_ptr<Runner>(Callbacks)> Maker(const Clock& clock,
                                                                 FakeRunner** made) {
    return [&clock, made](Callbacks callbacks) {
      auto fake = std::make_unique<FakeRunner>(clock, std::move(callbacks));
      *made = fake.get();
      return fake;
    };
  }

  Result<int> Start(const Launch& launch) override {
    if (refuse_starts) return Status::Internal("cannot start the shim: refused by the test");
    launches.push_back(launch);
    running_[launch.id] = {launch.attempt, std::nullopt};
    return 10000 + static_cast<int>(launches.size());
  }
  void EndStored(TaskId, int) override {}
  void Adopt(const RunningAttempt& a) override { running_[a.task_id] = {a.number, a.stop}; }
  bool Terminate(TaskId id, AttemptReason why, TaskReason task_reason, const StopSignal&) override {
    auto it = running_.find(id);
    if (it == running_.end()) return false;
    if (!it->second.stop) {
      it->second.stop = StopRequest{why, task_reason, clock_.WallNow()};
      callbacks_.on_stop(id, it->second.attempt, *it->second.stop);
    }
    return true;
  }

  int RunningHere() const override { return static_cast<int>(running_.size()); }
  bool Runs(TaskId id, int attempt) const override {
    auto it = running_.find(id);
    return it != running_.end() && it->second.attempt == attempt;
  }

  void KillOrphan(TaskId id, int attempt) override { orphans_killed.emplace_back(id, attempt); }

  /// The attempts KillOrphan was asked to kill, in order.
  std::vector<std::pair<TaskId, int>> orphans_killed;

  /// Ends the running attempt of `id` with `outcome`, as its supervisor's end would.
  void Finish(TaskId id, AttemptOutcome outcome) {
    const Attempt r = running_.at(id);
    running_.erase(id);
    callbacks_.on_finished(id, r.attempt, outcome, r.stop);
  }
  /// Ends the running attempt of `id` with exit code `code`, as the Executor reports it: a stop
  /// asked of a task that then fails names the stop's reason.
  void Exit(TaskId id, int code) {
    AttemptOutcome outcome;
    outcome.ended = clock_.WallNow();
    outcome.exit_code = code;
    const auto& stop = running_.at(id).stop;
    outcome.reason = code != 0 && stop ? stop->attempt_reason : AttemptReason::kExit;
    Finish(id, outcome);
  }
  /// The ids of the running attempts' tasks, in id order.
  std::vector<TaskId> Running() const {
    std::vector<TaskId> ids;
    for (const auto& [id, r] : running_) ids.push_back(id);
    return ids;
  }
  /// The stop asked of the running attempt of `id`, if any.
  std::optional<StopRequest> StopOf(TaskId id) const { return running_.at(id).stop; }

  std::vector<Launch> launches;  ///< every Start, in order
  bool refuse_starts = false;    ///< Start fails as a shim that cannot be spawned does

 private:
  struct Attempt {
    int attempt = 0;
    std::optional<StopRequest> stop;
  };
  const Clock& clock_;
  Callbacks callbacks_;
  std::map<TaskId, Attempt> running_;
};

}  // namespace tq
