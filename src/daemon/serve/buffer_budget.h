// Who may make the daemon hold how many bytes for its clients: requests being read and responses
// not yet sent, bounded in all and per user, so that no user (nor a crowd of users) can make it
// hold much memory by sending frames slowly or by never reading what it answers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace tq {

/// Counts the bytes buffered for clients, input and output, in total and per uid, and decides
/// whether more input fits and whether some output must go. Input is read only into room that
/// fits: at most `per_uid` for each uid but root and `owner_uid` (the user the daemon runs as),
/// and at most `total - owner_reserve` in all but for root and `owner_uid`, who may also take the
/// reserve. Output (a response is queued whole) is counted as it comes and never keeps input out:
/// once a uid's input and output are past `per_uid`, or everyone's past `total`, Over says so and
/// the server drops a client that does not read. Pure bookkeeping; the event loop's.
class BufferBudget {
 public:
  /// Which bytes: of requests being read, or of responses not yet sent.
  enum class Kind { kInput, kOutput };
  /// Which bound a uid's bytes are past, if any.
  enum class Excess { kNone, kUser, kTotal };

  BufferBudget(size_t total, size_t per_uid, size_t owner_reserve, uint32_t owner_uid);

  /// True when `uid` may read `bytes` more input.
  bool Fits(uint32_t uid, size_t bytes) const;
  /// Counts `bytes` more of `kind` for `uid`, fitting or not.
  void Add(uint32_t uid, Kind kind, size_t bytes);
  /// Forgets `bytes` of `kind` of `uid`; never more than it holds.
  void Release(uint32_t uid, Kind kind, size_t bytes);
  /// Whether `uid`'s input and output are past its own bound (kUser), or everyone's past the
  /// whole total, reserve included (kTotal).
  Excess Over(uint32_t uid) const;

  /// Bytes counted in all.
  size_t held() const { return input_ + output_; }
  /// Bytes counted for `uid`.
  size_t HeldBy(uint32_t uid) const;
  size_t total() const { return total_; }
  size_t per_uid() const { return per_uid_; }

 private:
  struct Bytes {
    size_t input = 0, output = 0;
  };
  bool Exempt(uint32_t uid) const { return uid == 0 || uid == owner_uid_; }

  size_t total_;
  size_t per_uid_;
  size_t owner_reserve_;
  uint32_t owner_uid_;
  size_t input_ = 0, output_ = 0;
  std::unordered_map<uint32_t, Bytes> by_uid_;
};

}  // namespace tq
