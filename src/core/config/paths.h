// Where tqd and tq look for the socket, the state and the config (SPEC 8): every default path in
// one place. Reads the environment and the password database; creates nothing.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace tq {

/// Which daemon: the one for the whole host (run by root) or one user's own.
enum class Mode { kUser, kSystem };

/// root runs the system daemon; everyone else a user daemon.
Mode ModeForUid(uid_t uid);

/// The default locations a daemon uses when tqd.toml and the command line say nothing.
struct DaemonPaths {
  std::string socket;       ///< the listening socket
  std::string state_dir;    ///< the database and task output
  std::string config_file;  ///< tqd.toml
  std::string jobs_dir;     ///< the job files (SPEC 7), next to tqd.toml
};

/// The defaults of `mode`, from the environment ($XDG_*, $HOME) of the calling process.
DaemonPaths DefaultDaemonPaths(Mode mode);

/// The sockets `tq` tries, in order: only $TQ_SOCKET when it is set and non-empty, else the
/// caller's user socket, then the system socket.
std::vector<std::string> ClientSocketCandidates();

/// The calling user's daemon socket: $XDG_RUNTIME_DIR/tq/tq.sock, or /tmp/tq-$UID/tq.sock when
/// XDG_RUNTIME_DIR is unset (or not absolute).
std::string UserSocketPath();

/// The system daemon's socket, /run/tq/tq.sock.
std::string SystemSocketPath();

/// The helper program `name` beside this executable (a build tree), else `installed` (where
/// `cmake --install` placed it: /usr/libexec/tq for the package, /usr/local/libexec/tq by
/// default).
std::string HelperPath(const std::string& name, const std::string& installed);

/// The caller's home directory: $HOME if set and absolute, else the password database entry,
/// else /tmp/tq-$UID (so a path is always absolute).
std::string HomeDir();

}  // namespace tq
