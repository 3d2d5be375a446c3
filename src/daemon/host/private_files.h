// Keeping what only tqd may read private (SPEC 8): the store holds tasks' environments and
// stdin, so its directories are 0700 and its files 0600, whatever the umask.
#pragma once

#include <optional>
#include <string>

#include "core/model/account.h"
#include "core/model/status.h"

namespace tq {

/// Whether `dir` is shared with other users by design, so that a chmod of it would break it for
/// them: a sticky directory (/tmp, /var/tmp, /dev/shm) or one of the system's own (/, /usr, /run,
/// /var...).
bool SharedDir(const std::string& dir);

/// Refuses (kConfig) a directory that group or others may read or write, naming `what` (the
/// setting), the path, its mode and the remedy: a chmod of `dir`, or for a SharedDir `own_dir`,
/// how to make tqd a directory of its own. Fine when `dir` does not exist yet. Entering is
/// allowed: the system daemon's state directory is 0711, so that each task reaches its own
/// context directory.
Status RefuseOpenDir(const std::string& what, const std::string& dir, const std::string& own_dir);

/// Refuses (kConfig) a directory that group or others may write, naming `what`, the path, its
/// mode and the remedy, as RefuseOpenDir: another user could swap a file in it. Fine when `dir`
/// does not exist.
Status RefuseWritableDir(const std::string& what, const std::string& dir,
                         const std::string& own_dir);

/// Creates tqd's own directory `dir` with mode 0700, or takes group's and others' bits from one
/// that exists (tqd made it, so it fixes it). Fails with kConfig naming the path.
Status MakePrivateDir(const std::string& dir);

/// Creates tqd's own file `path` empty with mode 0600 when it is missing, or takes group's and
/// others' bits from one that exists. Fails with kConfig naming the path.
Status MakePrivateFile(const std::string& path);

/// Takes group's and others' bits from tqd's own file `path` when it exists.
Status NarrowFileMode(const std::string& path);

/// Writes `text` to `path`, created (or truncated) with mode 0600 and owned by `owner` when
/// given (a task's stdin, a hook's input); kInternal naming the path when it cannot.
Status WritePrivateFile(const std::string& path, const std::string& text,
                        const std::optional<Account>& owner = std::nullopt);

/// True when the file system holding `dir` (or, while `dir` is not made yet, its parent) has
/// no room for a small new file for this process: under 64 KiB or no inode left.
bool NoRoomIn(const std::string& dir);

}  // namespace tq
