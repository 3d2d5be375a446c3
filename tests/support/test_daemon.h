// The integration-test fixture: a real tqd on a temporary socket and state directory, the real
// tq binary run without a shell (argv bytes exact), and waiting for conditions with a timeout.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tqtest {

/// How long a single tq call may take before the test gives up on it (a hang is a failure).
constexpr double kCallTimeoutS = 60;
/// How long a state the test waits for may take to arrive (a generous bound, not a timing claim).
constexpr double kWaitTimeoutS = 30;

/// Polls `pred` every ~20 ms until it is true (returns true) or `timeout_s` passed (false).
bool WaitFor(const std::function<bool()>& pred, double timeout_s = kWaitTimeoutS);

/// Waits until a task has written its pid (a whole line) to `path`; returns it, or fails the
/// test naming the file.
pid_t WaitPidFile(const std::string& path);

/// The path of a built binary: tq, tqd or tq-shim.
std::string BinPath(const std::string& name);

/// What a finished process left: its exit code (128+signal if killed, -1 if it timed out).
struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

/// Another identity to run a child as (the test must be root).
struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
};

/// A child process with its stdin, stdout and stderr on pipes; output is collected as it comes.
class Process {
 public:
  /// Starts `argv` (argv[0] is the executable path) with the test's environment plus `extra_env`
  /// ("NAME=VALUE"), feeding `stdin_data` and then end-of-file; as `run_as` when given.
  Process(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
          std::string stdin_data = "", std::optional<RunAs> run_as = std::nullopt);
  /// Kills the process if it is still running.
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  /// Moves pending stdin and any available output, waiting at most `timeout_ms`; true once the
  /// process has exited and both output pipes are closed.
  bool Pump(int timeout_ms);
  /// Waits until `pred(stdout so far)` holds; false on timeout or when the process ended first.
  bool WaitOutput(const std::function<bool(const std::string&)>& pred,
                  double timeout_s = kWaitTimeoutS);
  /// Waits for the end (killing the process after `timeout_s`) and returns what it left.
  RunResult Finish(double timeout_s = kCallTimeoutS);

  pid_t pid() const { return pid_; }
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }

 private:
  void Reap(bool block);

  pid_t pid_ = -1;
  int in_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  std::string stdin_data_;
  size_t stdin_done_ = 0;
  std::string out_, err_;
  std::optional<int> exit_code_;
};

/// A tqd of its own for one test: temporary directory, socket, state, config and log. On
/// destruction it stops the daemon, kills every process its tasks left behind and removes the
/// directory.
class TestDaemon {
 public:
  /// Writes `config_toml` to DIR/tqd.toml, with `jobs_dir` set to jobs_dir() (so no test reads
  /// the host's job files), and starts tqd; waits until `tq ping`
  /// answers (REQUIRE fails the test with the daemon's log otherwise). A non-empty `wrapper`
  /// (e.g. {"/usr/bin/strace", "-f", "-o", FILE}) is put before tqd's command line, so tqd runs
  /// as the wrapper's child; DaemonPid() then finds tqd itself. `extra_args` (e.g. {"--shim",
  /// PATH}) are appended to tqd's command line at every start.
  explicit TestDaemon(const std::string& config_toml = "", std::vector<std::string> wrapper = {},
                      std::vector<std::string> extra_args = {});
  ~TestDaemon();
  TestDaemon(const TestDaemon&) = delete;
  TestDaemon& operator=(const TestDaemon&) = delete;

  /// The temporary directory: also a scratch place for the test's own files.
  const std::string& dir() const { return dir_; }
  const std::string& socket() const { return socket_; }
  std::string state_dir() const { return dir_ + "/state"; }
  /// The daemon's job directory (`jobs_dir` in its tqd.toml); empty until a test writes a file.
  std::string jobs_dir() const { return dir_ + "/jobs.d"; }
  /// Rewrites DIR/tqd.toml as the constructor wrote it, with `config_toml` in place of the first;
  /// `tq reload` or a restart makes the daemon read it.
  void WriteConfig(const std::string& config_toml) const;
  /// Writes job file `name` (e.g. "backup.toml") into jobs_dir(); `tq reload` or a restart
  /// makes the daemon read it.
  void WriteJobFile(const std::string& name, const std::string& toml) const;
  /// The process the harness started: tqd, or its wrapper when there is one.
  pid_t pid() const { return pid_; }
  /// tqd's own pid (the wrapper's tqd child, or the wrapper itself once it exec'd tqd); -1 when
  /// it is not running.
  pid_t DaemonPid();
  /// The daemon's stderr so far.
  std::string Log() const;
  /// "TQ_TEST_MARK=DIR": set for tq and tqd, so every task and shim inherits it and cleanup can
  /// find them in /proc even after they called setsid().
  std::string MarkEnv() const { return "TQ_TEST_MARK=" + dir_; }
  /// True while the daemon process has not exited.
  bool Alive();
  /// Stops the daemon with SIGTERM (running tasks go on under their shims) and starts it again
  /// on the same socket, state directory and config; waits until `tq ping` answers.
  void Restart();
  /// Starts tqd (again) on the same socket, state directory and config, without waiting.
  void Start();
  /// Waits until `tq ping` answers; REQUIRE fails the test with the daemon's log otherwise.
  void WaitReady();
  /// Stops tqd with SIGTERM and reaps it (SIGKILL if it is still there after 10 s).
  void Stop();
  /// kill -9 of tqd (never of its tasks or shims), and reaps it (and its wrapper).
  void Kill9();

 private:
  void KillLeftovers() const;
  // Waits for the started process (tqd or its wrapper) to end; false after `timeout_s`.
  bool WaitExit(double timeout_s);

  std::string dir_;
  std::string socket_;
  std::vector<std::string> wrapper_;
  std::vector<std::string> extra_args_;
  pid_t pid_ = -1;
  pid_t daemon_pid_ = -1;  // tqd under a wrapper, once found
};

/// Runs `tq --socket SOCKET ARGS...` and collects its exit code and output.
RunResult RunTq(const std::string& socket, const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env, const std::string& stdin_data = "");
/// Runs tq against `d`.
RunResult Tq(const TestDaemon& d, const std::vector<std::string>& args,
             const std::string& stdin_data = "");
/// Runs tq against `d` as another user: a copy of tq in the test directory (so the build tree
/// need not be readable by that user) with the directory opened to others, from the working
/// directory /, with `extra_env` ("NAME=VALUE") added to the test's environment, fed
/// `stdin_data`. Root only.
RunResult TqAs(const TestDaemon& d, RunAs who, const std::vector<std::string>& args,
               const std::vector<std::string>& extra_env = {}, const std::string& stdin_data = "");
/// Starts tq against `d` in the background (for `logs -f`, `wait` while something else happens).
std::unique_ptr<Process> TqBackground(const TestDaemon& d, const std::vector<std::string>& args);
/// `tq ARGS` started as `who` (as TqAs) and left running.
std::unique_ptr<Process> TqBackgroundAs(const TestDaemon& d, RunAs who,
                                        const std::vector<std::string>& args);

/// The status record of attempt `attempt` of task `id`, as its shim writes it.
std::string RecordPath(const TestDaemon& d, const std::string& id, int attempt = 1);
/// The directory under `d`'s state directory holding task `id`'s files.
std::string TaskFilesDir(const TestDaemon& d, const std::string& id);
/// A number field of a shim status record ("key=value" lines); -1 when absent.
long long RecordField(const std::string& record_path, const std::string& key);
/// Waits until the shim of the first attempt of task `id` has named itself in its record;
/// returns its pid, or fails the test.
pid_t WaitShimPid(const TestDaemon& d, const std::string& id);

/// `tq submit ARGS`; REQUIREs success and a stdout of digits and a newline; returns the id.
std::string Submit(const TestDaemon& d, const std::vector<std::string>& args);
/// `tq status ID --json`, parsed; REQUIREs success.
nlohmann::json TaskJson(const TestDaemon& d, const std::string& id);
/// The task's state from `tq status ID --json`.
std::string TaskState(const TestDaemon& d, const std::string& id);
/// Waits until the task is in `state`; false on timeout.
bool WaitState(const TestDaemon& d, const std::string& id, const std::string& state,
               double timeout_s = kWaitTimeoutS);
/// Every task `tq list --json ARGS` shows (no limit), newest first; REQUIREs success.
std::vector<nlohmann::json> ListTasks(const TestDaemon& d, std::vector<std::string> args = {});
/// Milliseconds since the epoch of a time as `--json` prints it ("2026-11-22T08:25:15.149Z");
/// REQUIREs that form.
long long TimeMs(const nlohmann::json& rfc3339);
/// Parses one JSON object per line (the `--json` output of list, wait, cancel).
std::vector<nlohmann::json> JsonLines(const std::string& text);

/// A shell word for `s`: single quotes around it (the test directories hold no quote).
std::string Quoted(const std::string& s);
/// The whole content of a file, or "" when it cannot be read.
std::string ReadFile(const std::string& path);
/// The lines of `text`, without their newlines.
std::vector<std::string> Lines(const std::string& text);
/// True when `needle` occurs in `haystack`.
bool Contains(const std::string& haystack, const std::string& needle);
/// The lines of a file (without their newlines); none when it cannot be read.
std::vector<std::string> FileLines(const std::string& path);
/// The words of the first line of `table` whose first word is `first` (a row of a tq table, or
/// its header); none when no line starts so.
std::vector<std::string> WordsOfRow(const std::string& table, const std::string& first);
/// Writes `data` to `path` (REQUIREs success).
void WriteFile(const std::string& path, const std::string& data);
/// True when `pid` no longer runs: gone, or a zombie nobody reaped yet.
bool ProcessGone(pid_t pid);

}  // namespace tqtest

/// Attaches the daemon's log to every failing assertion after it (read only on failure).
#define TQ_LOG_ON_FAILURE(d) INFO("tqd log (" << (d).dir() << "):\n" << (d).Log())
