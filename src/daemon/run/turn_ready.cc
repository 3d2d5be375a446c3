#include "daemon/run/turn_ready.h"

namespace tq {

TurnReadySource::TurnReadySource(Store& store, std::vector<std::string> unfit,
                                 std::map<uint32_t, int> running, const ServedLog& served,
                                 Capped capped, Failed failed)
    : store_(store),
      unfit_(std::move(unfit)),
      running_(std::move(running)),
      served_(served),
      capped_(std::move(capped)),
      failed_(std::move(failed)) {}

void TurnReadySource::Picked(uint32_t owner_uid, bool started) {
  if (started) ++running_[owner_uid];
  // Its pick is no longer ready (or ended, or waits): the owner's next ones are read again. A
  // queue's owners are kept: one left with none reads as no first task.
  std::erase_if(first_,
                [owner_uid](const auto& entry) { return std::get<1>(entry.first) == owner_uid; });
}

void TurnReadySource::Unfit(std::vector<std::string> unfit) {
  unfit_ = std::move(unfit);
  first_.clear();
}

const std::vector<uint32_t>* TurnReadySource::ReadyOwners(const std::string& queue) {
  if (auto it = owners_.find(queue); it != owners_.end()) return &it->second;
  auto owners = store_.ReadyOwners(queue);
  if (!owners.ok()) {
    failed_(owners.status().message());
    return nullptr;
  }
  return &owners_.emplace(queue, std::move(*owners)).first->second;
}

std::optional<Candidate> TurnReadySource::FirstReady(const OpenQueue& q, uint32_t owner,
                                                     ReadyOrder order) {
  const auto key = std::tuple(q.name, owner, order);
  if (auto it = first_.find(key); it != first_.end()) return it->second;
  auto c = store_.FirstReady(q.name, owner, order, unfit_, q.places);
  if (!c.ok()) {
    failed_(c.status().message());
    return std::nullopt;
  }
  first_.emplace(key, *c);
  return *c;
}

std::vector<OwnerCandidate> TurnReadySource::FirstPerOwner(ReadyOrder order) {
  std::map<uint32_t, OwnerCandidate> best;
  for (const OpenQueue& q : queues_) {
    const ReadyOrder in_queue =
        q.mix == PriorityMix::kStrict ? ReadyOrder::kHighestPriority : order;
    const std::vector<uint32_t>* owners = ReadyOwners(q.name);
    if (owners == nullptr) continue;
    for (uint32_t owner : *owners) {
      const int running = running_[owner];
      if (capped_(owner, running)) continue;
      const std::optional<Candidate> cand = FirstReady(q, owner, in_queue);
      if (!cand) continue;
      auto [it, added] =
          best.emplace(owner, OwnerCandidate{*cand, running, served_.LastServed(owner)});
      if (!added && ComesFirst(*cand, it->second.first, order)) it->second.first = *cand;
    }
  }
  std::vector<OwnerCandidate> out;
  out.reserve(best.size());
  for (const auto& [owner, c] : best) out.push_back(c);
  return out;
}

}  // namespace tq
