// The errors of one job file, gathered so that a user fixes them all in one pass: each is a
// line "<path>:<line>: <key>: <reason>", and at most kMaxFileErrors are kept.
#pragma once

#include <string>

#include "core/model/status.h"

namespace tq {

/// The most errors of one job file that are reported; the rest are counted.
constexpr int kMaxFileErrors = 20;

/// Gathers the refusals of one file.
class FileErrors {
 public:
  /// For the file at `path` (named in the line that counts the errors left out).
  explicit FileErrors(std::string path) : path_(std::move(path)) {}

  /// Keeps `s` when it is an error; returns whether it was fine.
  bool Add(const Status& s);
  /// How many errors were added.
  int count() const { return count_; }
  /// Ok when none was added; else a kConfig error whose field is the first's and whose message
  /// holds one line per kept error, then "<path>: N more errors" when some were left out.
  Status Joined() const;

 private:
  std::string path_;
  std::string field_;
  std::string lines_;
  int count_ = 0;
};

}  // namespace tq
