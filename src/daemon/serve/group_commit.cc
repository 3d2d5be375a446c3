#include "daemon/serve/group_commit.h"

#include <spdlog/spdlog.h>

namespace tq {

void GroupCommit::Add(ConnId conn, const Owner& peer, TaskSpec spec, bool supersede_running) {
  group_.emplace_back(conn, SubmitItem{peer, std::move(spec), supersede_running});
  if (group_.size() == 1)
    join_([this] { StoreGroup(); }, [this](const Status& committed) { AnswerAll(committed); });
}

Status GroupCommit::Admit(const Owner& peer, int64_t count) {
  int64_t queued = 0;
  for (const auto& [conn, item] : group_) queued += item.owner.uid == peer.uid;
  return limits_.Admit(store_, peer, count, queued);
}

void GroupCommit::StoreGroup() {
  storing_ = std::move(group_);
  group_.clear();
  std::vector<SubmitItem> items;
  items.reserve(storing_.size());
  for (auto& [conn, item] : storing_) items.push_back(item);
  outcomes_ = store_.SubmitGroup(items, clock_.WallNow());
  spdlog::debug("group commit of {} submit(s)", items.size());
}

void GroupCommit::AnswerAll(const Status& committed) {
  auto storing = std::move(storing_);
  auto outcomes = std::move(outcomes_);
  storing_.clear();
  outcomes_.clear();
  // A turn whose transaction could not begin never ran Store: its group is answered too.
  for (auto& entry : group_) storing.push_back(std::move(entry));
  group_.clear();
  for (size_t i = 0; i < storing.size(); ++i) {
    const Result<SubmitOutcome> outcome =
        committed.ok() && i < outcomes.size()
            ? outcomes[i]
            : Result<SubmitOutcome>(committed.ok() ? Status::Internal("not stored") : committed);
    answer_(storing[i].first, storing[i].second, outcome);
  }
}

}  // namespace tq
