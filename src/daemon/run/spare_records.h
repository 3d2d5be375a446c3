// Status records whose attempts are over and stored, kept to serve as the records of later
// attempts: taking one is a rename, so starting an attempt creates no file for its record (a new
// inode is the costliest step of a start on a busy ext4).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tq {

/// A bounded pool of spare status record files in one directory.
class SpareRecords {
 public:
  /// The spares in `dir` (made by TaskFiles::Prepare); those an earlier tqd left are taken up.
  explicit SpareRecords(std::string dir);

  /// Keeps `record`, the status record of an attempt whose end is stored, as a spare; removes it
  /// when enough are kept.
  void Keep(const std::string& record);
  /// Moves a spare to `path`, blanked (ShimRecordBlank) and locked first, as LockedStatusRecord
  /// leaves a new one; its descriptor, or nothing when no spare could be taken.
  std::optional<int> TakeAs(const std::string& path);

 private:
  static constexpr size_t kMaxSpares = 64;

  std::string dir_;
  std::vector<std::string> spares_;  ///< names in dir_
  uint64_t next_ = 0;                ///< the next name to give a spare
};

}  // namespace tq
