// What one stage of a task passes on to the next (SPEC 13): the KEY=VALUE lines it writes to
// $TQ_CONTEXT/env, read by tqd before each later stage. Pure: the file is read elsewhere
// (daemon/host/context_dirs.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tq {

/// The most bytes of $TQ_CONTEXT/env tqd reads: a larger file is ignored whole.
constexpr size_t kMaxContextEnvBytes = 64 * 1024;
/// The most distinct names the file may give; each line past them is refused.
constexpr size_t kMaxContextEnvEntries = 256;
/// The longest name, in bytes.
constexpr size_t kMaxContextEnvNameBytes = 128;
/// The longest value, in bytes.
constexpr size_t kMaxContextEnvValueBytes = 4096;
/// The most refusals reported one by one; one more message counts the rest (a file of junk
/// must not flood the log).
constexpr size_t kMaxContextEnvRefusals = 16;

/// The entries a stage's $TQ_CONTEXT/env gives the next stages, and the lines refused.
struct ContextEnv {
  /// "NAME=VALUE", in the order each name first appears; a later line of the same name replaces
  /// the value in place.
  std::vector<std::string> entries;
  /// One message per refused line ("line 3: \"1X\" is not a variable name"), at most
  /// kMaxContextEnvRefusals and then one counting the others. A message names the line and the
  /// name, never the value (it may be a secret).
  std::vector<std::string> refused;
};

/// Reads the text of a context env file: one NAME=VALUE a line ('\n', a trailing '\r' dropped),
/// optionally after blanks and `export `; blank lines and lines starting with '#' (after blanks)
/// are skipped. NAME is [A-Za-z_][A-Za-z0-9_]* of at most kMaxContextEnvNameBytes and not TQ_*
/// (tq's own); VALUE is everything after the first '=', taken literally: no quotes are removed
/// and nothing is expanded. It may hold any byte but NUL, up to kMaxContextEnvValueBytes.
ContextEnv ParseContextEnv(std::string_view text);

}  // namespace tq
