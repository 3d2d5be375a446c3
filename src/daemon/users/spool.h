// Each user's own job file, kept by the daemon (`tq jobs install`): DIR/USER.toml, written by
// tqd alone (0600, in a 0700 directory of the state directory), replaced atomically, so a crash
// or a full disk never leaves half a file and a broken edit never replaces the last good one.
// As cron binds a crontab to its owner, the file belongs to the user's uid: a later account of
// the same name (another uid) does not get it.
#pragma once

#include <optional>
#include <string>

#include "core/model/status.h"

namespace tq {

/// Whether a user's file is theirs.
struct SpoolBinding {
  /// kNone: no file; kBound: it belongs to the uid the account USER has now; kStale: it belongs
  /// to another uid, or the account is gone (an earlier account of that name wrote it).
  enum class State { kNone, kBound, kStale };
  State state = State::kNone;
  std::string why;  ///< kStale: the file, its uid and the account's uid (or that it is gone)
};

/// The spool directory of users' job files.
class Spool {
 public:
  /// `dir` is created (0700) by Prepare.
  explicit Spool(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  /// The file of `user`: DIR/USER.toml.
  std::string PathOf(const std::string& user) const { return dir_ + "/" + user + ".toml"; }
  /// The user whose file `path` is (the name of DIR/NAME.toml); "" for any other path.
  std::string UserOf(const std::string& path) const;

  /// Creates the directory when it is missing.
  Status Prepare() const;
  /// Replaces the file of `user` with `text`: a temporary file (0600; in the system daemon
  /// chowned to the account's uid and primary gid), fsync, rename over the old one, fsync of
  /// the directory. On any failure the old file stays as it was.
  Status Write(const std::string& user, const std::string& text) const;
  /// Whether `user`'s file belongs to the uid of the account `user` names now. The system daemon
  /// first gives a file owned by root to that account (chown, logged): an earlier tqd wrote
  /// every file as root. kInternal when the file cannot be checked or the account cannot be
  /// looked up.
  Result<SpoolBinding> Bind(const std::string& user) const;
  /// The text of `user`'s file; nullopt when there is none.
  Result<std::optional<std::string>> Read(const std::string& user) const;
  /// Removes `user`'s file (and fsyncs the directory); false when there was none.
  Result<bool> Remove(const std::string& user) const;

 private:
  std::string dir_;
};

}  // namespace tq
