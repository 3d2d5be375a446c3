// The chooser's ready set over one turn of dispatch (SPEC 4): read from the store's ready
// indexes as the chooser asks and kept for the rest of the turn, so that each claim costs the
// store what it changed, not the whole ready set again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/policy/chooser.h"
#include "core/store/store.h"

namespace tq {

/// One queue the chooser may take from now, and how it orders its own ready tasks.
struct OpenQueue {
  std::string name;
  PriorityMix mix = PriorityMix::kMixed;
  ReadyPlaces places;  ///< the ready tasks this host may take, by where they were placed
};

/// Serves the chooser for one turn over the queues that have a free slot and the owners below
/// their own running cap (`capped` says who is at it). A strict queue offers its highest-priority
/// task whichever order was drawn: the draw then weighs it against the other queues' tasks, so
/// only the order within the queue is strict. Each queue's ready owners and each owner's first
/// ready task are read once; a pick reads its owner's again (Picked).
class TurnReadySource : public ReadySource {
 public:
  using Capped = std::function<bool(uint32_t owner_uid, int running)>;
  using Failed = std::function<void(const std::string& message)>;

  /// `unfit`: the unit requests (as stored) whose units are not free; `running`: each owner's
  /// running attempts when the turn began.
  TurnReadySource(Store& store, std::vector<std::string> unfit, std::map<uint32_t, int> running,
                  const ServedLog& served, Capped capped, Failed failed);

  /// The queues with a free slot now.
  void Open(std::vector<OpenQueue> queues) { queues_ = std::move(queues); }
  /// A task of `owner_uid` was picked: their first ready tasks are read again at the next ask,
  /// and when `started` they run one more attempt.
  void Picked(uint32_t owner_uid, bool started);
  /// The units held changed: `unfit` is passed over now, and every first ready task is read
  /// again.
  void Unfit(std::vector<std::string> unfit);

  std::vector<OwnerCandidate> FirstPerOwner(ReadyOrder order) override;

 private:
  /// The owners with a ready task in `queue`; nullptr when the store failed (told to failed_).
  const std::vector<uint32_t>* ReadyOwners(const std::string& queue);
  /// `owner`'s first ready task of `q` in `order`; nullopt when none or the store failed.
  std::optional<Candidate> FirstReady(const OpenQueue& q, uint32_t owner, ReadyOrder order);

  Store& store_;
  std::vector<OpenQueue> queues_;
  std::vector<std::string> unfit_;
  std::map<uint32_t, int> running_;
  const ServedLog& served_;
  Capped capped_;
  Failed failed_;
  std::map<std::string, std::vector<uint32_t>> owners_;  ///< ReadyOwners, by queue
  std::map<std::tuple<std::string, uint32_t, ReadyOrder>, std::optional<Candidate>> first_;
};

}  // namespace tq
