#include "core/policy/submit_key.h"

namespace tq {

KeyDecision DecideKeyedSubmit(const std::vector<KeyedTask>& same_key, int64_t version,
                              bool supersede_running) {
  KeyDecision d;
  const KeyedTask* newest_higher = nullptr;
  const KeyedTask* same = nullptr;
  for (const KeyedTask& t : same_key) {
    if (t.version > version && (!newest_higher || t.version > newest_higher->version ||
                                (t.version == newest_higher->version && t.id > newest_higher->id)))
      newest_higher = &t;
    if (t.version == version && (!same || t.id > same->id)) same = &t;
  }
  if (newest_higher) {
    d.action = KeyAction::kRefuseNewer;
    d.existing = newest_higher->id;
    return d;
  }
  if (same) {
    d.existing = same->id;
    const bool done = same->state == TaskState::kRunning || same->state == TaskState::kSucceeded;
    d.action = done ? KeyAction::kReturnExisting : KeyAction::kReplace;
    if (done) return d;
  }
  for (const KeyedTask& t : same_key) {
    if (t.version >= version) continue;
    if (t.state == TaskState::kPending) d.cancel_pending.push_back(t.id);
    if (t.state == TaskState::kRunning && supersede_running) d.cancel_running.push_back(t.id);
  }
  return d;
}

}  // namespace tq
