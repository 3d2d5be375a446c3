// The watcher of SPEC 6: fails tasks pending past their pending_ttl, expires succeeded tasks
// after success_retention and purges ended ones after purge_after, a small batch at a time so
// the event loop is never held for long.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "core/config/config.h"
#include "core/model/clock.h"
#include "core/store/store.h"

namespace tq {

/// Runs the time-driven parts of a task's life. Called from the event loop only.
class Watcher {
 public:
  /// Receives ids that a turn moved to a new terminal state, or whose rows a turn deleted.
  using IdsCallback = std::function<void(const std::vector<TaskId>&)>;

  /// Reads success_retention and purge_after through `config` (the daemon's pointer, which must
  /// outlive the watcher) at each turn; does at most `batch` rows per kind of work per turn.
  Watcher(Store& store, const Clock& clock, const ConfigPtr& config, IdsCallback on_ended,
          IdsCallback on_purged, int batch = 500);

  /// Does one batch of each kind of work that is due now. What a full batch left over is due
  /// at once by NextDue. The first store failure comes back (the others still ran); the
  /// caller logs it and gives the store its pause.
  Status RunDue();
  /// When the watcher next has work (now or earlier when work is overdue), nullopt for never.
  /// Read from the store at most once a second (each turn of dispatch asks): a value read less
  /// than a second ago is kept, and then the watcher looks again a second after that read, for
  /// what the turns since may have added (a task with a pending_ttl, a task that ended).
  std::optional<WallMs> NextDue();

 private:
  /// NextDue, as the store says it now.
  std::optional<WallMs> ReadNextDue();

  Store& store_;
  const Clock& clock_;
  const ConfigPtr& config_;
  int batch_;
  IdsCallback on_ended_;
  IdsCallback on_purged_;
  std::optional<MonoMs> read_at_;   ///< when NextDue last read the store (none since RunDue)
  std::optional<WallMs> read_due_;  ///< what it read
};

}  // namespace tq
