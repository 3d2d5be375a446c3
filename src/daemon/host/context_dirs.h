// Tasks' context directories (SPEC 13): ROOT/u<uid>/<id>, one for each task with stages, owned by
// the task's user, with the env file in which a stage passes values on. ROOT is 0711 and each
// user's ROOT/u<uid> 0700 and theirs, so another account may learn that a uid has contexts, never
// which tasks (an earlier tqd made ROOT/<id>: such a one is moved when its task needs it). tqd
// runs as root in system mode and the user owns what is inside, so everything here goes through
// directory descriptors opened without following symbolic links, checks what it finds before it
// trusts it, and enters nothing on another file system than ROOT's (a user's FUSE mount).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/status.h"
#include "core/policy/context_env.h"

namespace tq {

/// The most entries RemoveContextDirs removes or moves in one tree (a step each) before it gives up
/// on it: a process still writing into the tree must not keep tqd busy for ever.
constexpr int64_t kMaxContextRemoveSteps = 1'000'000;

/// Creates the directory of contexts `root` with mode 0711 (a task's user may pass through it
/// to its own directory, never list it), or gives an existing one that mode. Fails with
/// kConfig naming the path when it cannot, or when `root` is not a directory owned by tqd.
Status PrepareContextRoot(const std::string& root);

/// The path of task `task_id`'s context directory when it runs as `uid`: root/u<uid>/<task_id>.
std::string ContextDirPath(const std::string& root, int64_t task_id, uint32_t uid);

/// The context directory ContextDirPath(root, task_id, uid) of `owner` (uid, gid; tqd's own when
/// nullopt), made with mode 0700 (whatever the umask) and owned by them, in root/u<uid> made so
/// too when missing; or the one an earlier stage or attempt made, or the root/<task_id> an
/// earlier tqd made, moved there. An existing one (each of the two, or the old one) is used only
/// when it is a directory (not a symbolic link) owned by that uid on root's file system, and is
/// left as it is otherwise. Fails with kInternal naming the directory and the reason.
Result<std::string> MakeContextDir(const std::string& root, int64_t task_id,
                                   std::optional<std::pair<uint32_t, uint32_t>> owner);

/// What the env file in ContextDirPath(root, task_id, uid) gives the next stages
/// (ParseContextEnv); empty when there is no such file. A file that is not a regular file owned
/// by `uid` with one link, or is larger than kMaxContextEnvBytes, is ignored: the result is ok
/// and its `refused` says why, for the log (the messages do not repeat the path). Never reads
/// more than the limit and a byte, never blocks on a FIFO. Fails (kInternal) when the directory
/// or the file cannot be read, and without entering them when one is on another file system
/// than root.
Result<ContextEnv> ReadContextEnvFile(const std::string& root, int64_t task_id, uint32_t uid);

/// Removes the context directories of `ids`, in every user's directory and where an earlier tqd
/// made them (root/<id>), and each user's directory this leaves empty (a missing one is fine; a
/// file or symbolic link of that name is unlinked), returning "path: why" for each that could not
/// be. Safe against a hostile owner of a tree: it never follows a symbolic link, enters only
/// directories of the tree's owner on root's file system, needs no recursion (it moves
/// sub-directories up instead), holds at most 3 descriptors at a time, and leaves a tree after
/// kMaxContextRemoveSteps steps.
std::vector<std::string> RemoveContextDirs(const std::string& root,
                                           const std::vector<int64_t>& ids);

}  // namespace tq
