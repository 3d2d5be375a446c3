// Tasks' context directories (SPEC 13): ROOT/<id>, one for each task with stages, owned by the
// task's user, with the env file in which a stage passes values on. tqd runs as root in system
// mode and the user owns what is inside, so everything here goes through directory descriptors
// opened without following symbolic links, and checks what it finds before it trusts it.
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

/// The context directory root/<task_id>, created with mode 0700 (whatever the umask) and owned
/// by `owner` (uid, gid; tqd's own when nullopt), or the one an earlier stage or attempt made:
/// that one is used only when it is a directory (not a symbolic link) owned by that uid, and is
/// left as it is otherwise. Fails with kInternal naming the path and the reason.
Result<std::string> MakeContextDir(const std::string& root, int64_t task_id,
                                   std::optional<std::pair<uint32_t, uint32_t>> owner);

/// What context_dir/env gives the next stages (ParseContextEnv); empty when there is no such
/// file. A file that is not a regular file owned by `expected_uid` with one link, or is larger
/// than kMaxContextEnvBytes, is ignored: the result is ok and its `refused` says why, for the
/// log (the messages do not repeat the path). Never reads more than the limit and a byte, never
/// blocks on a FIFO. Fails (kInternal) only when the directory or the file cannot be read.
Result<ContextEnv> ReadContextEnvFile(const std::string& context_dir, uint32_t expected_uid);

/// Removes the trees root/<id> of `ids` (a missing one is fine; a file or symbolic link of that
/// name is unlinked), returning "root/<id>: why" for each that could not be. Safe against a
/// hostile owner of a tree: it never follows a symbolic link, enters only directories of the
/// tree's owner on the tree's filesystem, needs no recursion (it moves sub-directories up
/// instead), holds at most 3 descriptors at a time, and leaves a tree after
/// kMaxContextRemoveSteps steps.
std::vector<std::string> RemoveContextDirs(const std::string& root,
                                           const std::vector<int64_t>& ids);

}  // namespace tq
