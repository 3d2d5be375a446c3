#include "daemon/serve/group_commit.h"

#include "daemon/host/log.h"

namespace tq {

void GroupCommit::Add(ConnId conn, const Owner& peer, TaskSpec spec, bool supersede_running) {
  store_.PrepareInsert(spec.queue, spec.env);  // before the turn's transaction (see there)
  conns_.push_back(conn);
  items_.push_back(SubmitItem{peer, std::move(spec), supersede_running});
  if (items_.size() == 1)
    join_([this] { StoreGroup(); }, [this](const Status& committed) { AnswerAll(committed); });
}

Status GroupCommit::Admit(const Owner& peer, int64_t count) {
  int64_t queued = 0;
  for (const SubmitItem& item : items_) queued += item.owner.uid == peer.uid;
  return limits_.Admit(store_, peer, count, queued);
}

void GroupCommit::StoreGroup() {
  outcomes_ = store_.SubmitGroup(items_, clock_.WallNow());
  LogDebug("group commit of {} submit(s)", items_.size());
}

void GroupCommit::AnswerAll(const Status& committed) {
  const auto conns = std::move(conns_);
  const auto items = std::move(items_);
  const auto outcomes = std::move(outcomes_);
  conns_.clear();
  items_.clear();
  outcomes_.clear();
  // Without outcomes (a turn whose transaction could not begin never ran StoreGroup) each is
  // answered with why.
  for (size_t i = 0; i < items.size(); ++i) {
    const Result<SubmitOutcome> outcome =
        committed.ok() && i < outcomes.size()
            ? outcomes[i]
            : Result<SubmitOutcome>(committed.ok() ? Status::Internal("not stored") : committed);
    answer_(conns[i], items[i], outcome);
  }
}

}  // namespace tq
