#include "daemon/serve/buffer_budget.h"

#include <algorithm>

namespace tq {

namespace {
// True when `bytes` more fit beside `held` under `bound`.
bool Room(size_t held, size_t bytes, size_t bound) {
  return held <= bound && bytes <= bound - held;
}
}  // namespace

BufferBudget::BufferBudget(size_t total, size_t per_uid, size_t owner_reserve, uint32_t owner_uid)
    : total_(total),
      per_uid_(per_uid),
      owner_reserve_(std::min(owner_reserve, total / 2)),
      owner_uid_(owner_uid) {}

bool BufferBudget::Fits(uint32_t uid, size_t bytes) const {
  if (Exempt(uid)) return Room(input_, bytes, total_);
  auto it = by_uid_.find(uid);
  const size_t mine = it == by_uid_.end() ? 0 : it->second.input;
  return Room(input_, bytes, total_ - owner_reserve_) && Room(mine, bytes, per_uid_);
}

void BufferBudget::Add(uint32_t uid, Kind kind, size_t bytes) {
  if (bytes == 0) return;
  Bytes& mine = by_uid_[uid];
  (kind == Kind::kInput ? mine.input : mine.output) += bytes;
  (kind == Kind::kInput ? input_ : output_) += bytes;
}

void BufferBudget::Release(uint32_t uid, Kind kind, size_t bytes) {
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return;
  size_t& mine = kind == Kind::kInput ? it->second.input : it->second.output;
  const size_t n = std::min(bytes, mine);
  mine -= n;
  (kind == Kind::kInput ? input_ : output_) -= n;
  if (it->second.input == 0 && it->second.output == 0) by_uid_.erase(it);
}

BufferBudget::Excess BufferBudget::Over(uint32_t uid) const {
  if (!Exempt(uid) && HeldBy(uid) > per_uid_) return Excess::kUser;
  if (held() > total_) return Excess::kTotal;
  return Excess::kNone;
}

size_t BufferBudget::HeldBy(uint32_t uid) const {
  auto it = by_uid_.find(uid);
  return it == by_uid_.end() ? 0 : it->second.input + it->second.output;
}

}  // namespace tq
