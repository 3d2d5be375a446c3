// tqd: the task queue daemon. Parses flags, loads tqd.toml, and runs the Daemon.
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "core/config/config.h"
#include "core/config/paths.h"
#include "core/store/postgres/conninfo_check.h"
#include "daemon/cron/config_check.h"
#include "daemon/daemon.h"
#include "daemon/host/log_setup.h"
#include "daemon/host/private_files.h"
#include "daemon/serve/fd_limits.h"

namespace {

constexpr int kExitConfig = 78;  // EX_CONFIG, as SPEC 10 says for tqd

// Opens /dev/null on whichever of 0, 1 and 2 is closed, so no file of the daemon's (the store,
// a status record being handed to a shim) ever lands on a standard descriptor.
void EnsureStdFds() {
  for (int fd = 0; fd < 3; ++fd)
    if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd) _exit(1);
}

// The shim next to this executable (a build tree), else the one `cmake --install` placed.
std::string DefaultShimPath() {
  return tq::HelperPath("tq-shim", TQ_SHIM_INSTALL_PATH);
}

// Creates the socket's directory: 0700 and ours in user mode, 0755 in system mode. One that
// another user may write is refused: they could swap the socket between its bind and its chmod,
// or take its name. For one others share (/tmp) the remedy named is a directory of tqd's own in
// it, never a chmod of it.
tq::Status PrepareSocketDir(const std::string& socket_path, tq::Mode mode) {
  const size_t slash = socket_path.rfind('/');
  const std::string dir = socket_path.substr(0, slash);
  if (dir.empty()) return tq::Status::Ok();
  const bool system = mode == tq::Mode::kSystem;
  const std::string own = dir + "/tq";
  const std::string own_dir = std::string("install -d -m ") + (system ? "0755 " : "0700 ") + own +
                              " && tqd --socket " + own + socket_path.substr(slash);
  if (mkdir(dir.c_str(), system ? 0755 : 0700) != 0 && errno != EEXIST)
    return tq::Status(tq::ErrorCode::kConfig, "socket",
                      "socket: cannot create " + dir + ": " + strerror(errno));
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
    return tq::Status(tq::ErrorCode::kConfig, "socket",
                      "socket: " + dir + " is not a directory owned by uid " +
                          std::to_string(geteuid()) +
                          (tq::SharedDir(dir) ? "; make a directory of its own: " + own_dir : ""));
  return tq::RefuseWritableDir("socket", dir, own_dir);
}

// Refuses a socket another daemon answers on, naming it: checked before the state directory is
// touched. One nobody answers on (a daemon's leftover) is replaced when tqd listens. A socket
// whose listener is gone (killed, while a child it was forking still held the socket for a
// moment) is not served: tqd's own check when it listens has the last word.
tq::Status RefuseServedSocket(const std::string& socket_path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path) return tq::Status::Ok();  // Listen says why
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  // Non-blocking: a listener whose backlog is full (it is stopped) is one that serves.
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return tq::Status::Ok();
  bool served = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  if (!served) {
    served = errno == EAGAIN;
  } else {
    ucred listener{};
    socklen_t size = sizeof listener;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &listener, &size) == 0 && listener.pid > 0 &&
        kill(listener.pid, 0) != 0 && errno == ESRCH)
      served = false;
  }
  close(fd);
  if (!served) return tq::Status::Ok();
  return tq::Status(tq::ErrorCode::kConfig, "socket",
                    "socket: another tqd already serves " + socket_path +
                        " (stop it first, or start this one with another --socket)");
}

// Refuses a state directory tqd could not use, before anything is opened in it: a config error
// (exit 78) naming the path, as a missing one that cannot be created is. One that does not exist
// yet is created by the daemon.
tq::Status CheckStateDir(const std::string& dir) {
  const auto refuse = [&](const std::string& path, const std::string& why) {
    return tq::Status(tq::ErrorCode::kConfig, "state", "state: cannot use " + path + ": " + why);
  };
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0)
    return errno == ENOENT ? tq::Status::Ok() : refuse(dir, strerror(errno));
  if (!S_ISDIR(st.st_mode)) return refuse(dir, "not a directory");
  if (faccessat(AT_FDCWD, dir.c_str(), R_OK | W_OK | X_OK, AT_EACCESS) != 0)
    return refuse(dir, strerror(errno));
  // One tqd did not make (tqd makes it 0700): the store in it would be others' to read.
  if (tq::Status open = tq::RefuseOpenDir("state", dir, "tqd --state " + dir + "/tq-state");
      !open.ok())
    return open;
  // What an earlier daemon left must be ours to write as well.
  for (const char* name : {"tq.db", "tq.db-wal", "tq.db-shm", "attempts", "tasks"}) {
    const std::string path = dir + "/" + name;
    if (lstat(path.c_str(), &st) != 0) continue;
    const bool want_dir = std::string(name) == "attempts" || std::string(name) == "tasks";
    if (want_dir != S_ISDIR(st.st_mode))
      return refuse(path, want_dir ? "not a directory" : "not a regular file");
    const int mode = want_dir ? R_OK | W_OK | X_OK : R_OK | W_OK;
    if (faccessat(AT_FDCWD, path.c_str(), mode, AT_EACCESS) != 0)
      return refuse(path, strerror(errno));
  }
  return tq::Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  EnsureStdFds();

  const tq::Mode mode = tq::ModeForUid(geteuid());
  const tq::DaemonPaths defaults = tq::DefaultDaemonPaths(mode);
  std::string socket_path, state_dir, config_path, shim_path, jobs_dir, pam_dir;
  std::string log_level = "info";
  bool check_config = false, verbose = false;

  CLI::App app{"tqd - the tq task queue daemon"};
  app.add_option("--socket", socket_path,
                 "Unix socket to listen on (default: " + defaults.socket + ")");
  app.add_option("--state", state_dir, "state directory (default: " + defaults.state_dir + ")");
  app.add_option("--config", config_path, "tqd.toml (default: " + defaults.config_file + ")");
  app.add_option("--jobs-dir", jobs_dir,
                 "the cron job files, *.toml (default: jobs_dir in tqd.toml, else " +
                     defaults.jobs_dir + "); SIGHUP reloads them");
  app.add_option("--shim", shim_path,
                 "the tq-shim supervisor executable (default: beside tqd, else " +
                     std::string(TQ_SHIM_INSTALL_PATH) +
                     "); tasks with a PAM session start PATH-pam when it exists");
  app.add_option("--pam-dir", pam_dir,
                 "where the PAM configuration of service tq is (default: /etc/pam.d); system "
                 "mode opens a PAM session for each task when DIR/tq exists");
  app.add_flag("--check-config", check_config,
               "validate tqd.toml and every job file, then exit: 0 when all is good, 78 with "
               "FILE:LINE: reason on the first error");
  app.add_option("--log-level", log_level,
                 "the least severe messages logged: " + tq::LogLevelNames() + " (default: info)")
      ->check([](const std::string& v) {
        return tq::ParseLogLevel(v) ? std::string() : v + " is not one of " + tq::LogLevelNames();
      });
  app.add_flag("-v,--verbose", verbose, "log debug messages (--log-level debug)");
  app.set_version_flag("--version", TQ_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  // An explicit --log-level wins over -v.
  const spdlog::level::level_enum level = app.count("--log-level") == 0 && verbose
                                              ? spdlog::level::debug
                                              : *tq::ParseLogLevel(log_level);
  tq::SetUpLogging(level, tq::StderrIsJournal());

  const std::string config_file = config_path.empty() ? defaults.config_file : config_path;
  auto config = tq::LoadConfig(config_file, /*must_exist=*/!config_path.empty());
  if (!config.ok()) {
    spdlog::critical("{}", config.status().message());
    return kExitConfig;
  }
  // The store's URI as libpq will read it: one it refuses is a configuration error, named with
  // its password hidden, at a check as at a start.
  if (config->Shared()) {
    if (tq::Status st = tq::CheckConninfo(config->store); !st.ok()) {
      spdlog::critical("{}: {}", config_file, st.message());
      return kExitConfig;
    }
  }
  // A user or group that does not exist (yet): said at a check as at a start, never refused.
  for (const std::string& warning : tq::AccountWarnings(*config, config_file))
    spdlog::warn("{}", warning);
  tq::DaemonOptions options;
  options.config = std::make_shared<const tq::Config>(std::move(*config));
  options.read_config = [path = config_file, must_exist = !config_path.empty()] {
    return tq::LoadConfig(path, must_exist);
  };
  options.socket_path = !socket_path.empty()              ? socket_path
                        : !options.config->socket.empty() ? options.config->socket
                                                          : defaults.socket;
  options.state_dir = !state_dir.empty()                   ? state_dir
                      : !options.config->state_dir.empty() ? options.config->state_dir
                                                           : defaults.state_dir;
  options.jobs_dir = !jobs_dir.empty()                   ? jobs_dir
                     : !options.config->jobs_dir.empty() ? options.config->jobs_dir
                                                         : defaults.jobs_dir;
  if (check_config) {
    auto jobs = tq::CheckJobFiles(options.jobs_dir, options.state_dir + "/crontabs", geteuid(),
                                  options.config->unit_pools);
    if (!jobs.ok()) {
      for (const std::string& line : tq::MessageLines(jobs.status().message()))
        spdlog::critical("{}", line);  // an error a line
      return kExitConfig;
    }
    std::printf("configuration ok: %d job file(s) with %d job(s)\n", jobs->files, jobs->jobs);
    return 0;
  }
  // Before anything is made or opened in the state directory: a second tqd on a socket one
  // already serves leaves no trace.
  if (tq::Status st = RefuseServedSocket(options.socket_path); !st.ok()) {
    spdlog::critical("{}", st.message());
    return kExitConfig;
  }
  options.socket_mode = mode == tq::Mode::kSystem ? 0666 : 0600;
  options.run_as.owner = mode == tq::Mode::kSystem;
  if (options.run_as.owner) {
    const std::string service_file = (pam_dir.empty() ? "/etc/pam.d" : pam_dir) + "/tq";
    if (access(service_file.c_str(), F_OK) == 0) {
      options.run_as.pam_service = "tq";
      options.run_as.pam_dir = pam_dir;
    } else {
      spdlog::info("no {}: tasks run without a PAM session", service_file);
    }
  }
  options.shim_path = shim_path.empty() ? DefaultShimPath() : shim_path;
  options.task_fd_limit = tq::SoftFdLimit();  // tasks get it back: the raise is for tqd
  const size_t fd_limit = tq::RaiseFdLimit();
  options.server_limits.max_connections =
      tq::ConnectionBudget(fd_limit, options.config->max_running);
  spdlog::info("descriptor limit {}: serving at most {} clients", fd_limit,
               options.server_limits.max_connections);

  if (tq::Status st = CheckStateDir(options.state_dir); !st.ok()) {
    spdlog::critical("{}", st.message());
    return kExitConfig;
  }
  if (!options.config->metrics_textfile.empty()) {
    const std::string& file = options.config->metrics_textfile;
    const std::string dir =
        file.find('/') == std::string::npos ? "." : file.substr(0, file.rfind('/'));
    const std::string own = dir + "/tq-metrics";
    const std::string own_dir = "install -d -m 0755 " + own + " && metrics_textfile = \"" + own +
                                "/" + file.substr(file.rfind('/') + 1) + "\"";
    if (tq::Status st = tq::RefuseWritableDir("metrics_textfile", dir.empty() ? "/" : dir, own_dir);
        !st.ok()) {
      spdlog::critical("{}", st.message());
      return kExitConfig;
    }
  }
  if (tq::Status st = PrepareSocketDir(options.socket_path, mode); !st.ok()) {
    spdlog::critical("{}", st.message());
    return kExitConfig;
  }
  tq::RealClock clock;
  tq::Daemon daemon(options, clock);
  if (tq::Status st = daemon.Start(); !st.ok()) {
    spdlog::critical("{}", st.message());
    // A store that fails until something changes (a newer schema, no rights, not a tq store)
    // is a configuration error too: systemd does not start tqd again and again.
    return st.code() == tq::ErrorCode::kConfig || st.fault() == tq::StoreFault::kPermanent
               ? kExitConfig
               : 1;
  }
  daemon.Run();
  return 0;
}
