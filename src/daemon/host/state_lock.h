// One daemon per state directory: an exclusive flock on <state>/tqd.lock, holding our pid.
#pragma once

#include <string>

#include "core/model/status.h"

namespace tq {

/// Holds the state directory's lock for the daemon's lifetime.
class StateLock {
 public:
  StateLock() = default;
  ~StateLock();
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

  /// Takes the lock or fails with a message naming the holder's pid.
  Status Acquire(const std::string& state_dir);

 private:
  int fd_ = -1;
};

}  // namespace tq
