// tq on a terminal (SPEC 10): `tq wait`'s progress bar on stderr and coloured states in `tq list`
// on stdout, run on a pseudo-terminal against a real tqd; on a pipe, with NO_COLOR or with --json
// neither appears.
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <doctest/doctest.h>

#include "support/test_daemon.h"

extern char** environ;

using namespace tqtest;

namespace {

// The pseudo-terminal's size.
constexpr unsigned short kColumns = 100;

// Which of tq's outputs is the terminal; the other goes to a pipe.
enum class OnTty { kStdout, kStderr };

// What tq left: its exit code, what it wrote on the terminal and on the pipe.
struct TtyResult {
  int exit_code = -1;
  std::string tty, pipe;
};

// tq run with stdout or stderr on a pseudo-terminal (raw, so its bytes arrive unchanged) and the
// other on a pipe; stdin is /dev/null. The environment is the test's without TQ_SOCKET and
// NO_COLOR, plus `extra_env`.
class TtyProcess {
 public:
  TtyProcess(const TestDaemon& d, const std::vector<std::string>& args, OnTty on_tty,
             const std::vector<std::string>& extra_env = {}) {
    std::vector<std::string> argv = {BinPath("tq"), "--socket", d.socket()};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
      const std::string entry = *e;
      if (entry.rfind("TQ_SOCKET=", 0) != 0 && entry.rfind("NO_COLOR=", 0) != 0)
        env.push_back(entry);
    }
    env.push_back(d.MarkEnv());
    env.insert(env.end(), extra_env.begin(), extra_env.end());

    int slave = -1;
    winsize ws{};
    ws.ws_col = kColumns;
    ws.ws_row = 24;
    REQUIRE_MESSAGE(openpty(&master_, &slave, nullptr, nullptr, &ws) == 0,
                    "openpty: " << strerror(errno));
    termios raw{};
    REQUIRE(tcgetattr(slave, &raw) == 0);
    cfmakeraw(&raw);
    REQUIRE(tcsetattr(slave, TCSANOW, &raw) == 0);
    int pipe_fds[2];
    REQUIRE(pipe2(pipe_fds, O_CLOEXEC) == 0);
    pipe_ = pipe_fds[0];
    const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    REQUIRE(null >= 0);
    const int out = on_tty == OnTty::kStdout ? slave : pipe_fds[1];
    const int err = on_tty == OnTty::kStderr ? slave : pipe_fds[1];

    std::vector<char*> cargv, cenv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    for (auto& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    pid_ = fork();
    REQUIRE_MESSAGE(pid_ >= 0, "fork: " << strerror(errno));
    if (pid_ == 0) {
      signal(SIGPIPE, SIG_DFL);
      if (dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
      syscall(SYS_close_range, 3, ~0U, 0);
      execve(cargv[0], cargv.data(), cenv.data());
      _exit(127);
    }
    close(slave);  // so the master reads EIO once tq is gone
    close(pipe_fds[1]);
    close(null);
  }

  ~TtyProcess() {
    if (pid_ > 0 && !exit_code_) {
      kill(pid_, SIGKILL);
      Reap(/*block=*/true);
    }
    if (master_ >= 0) close(master_);
    if (pipe_ >= 0) close(pipe_);
  }

  TtyProcess(const TtyProcess&) = delete;
  TtyProcess& operator=(const TtyProcess&) = delete;

  // What tq wrote on the terminal so far.
  const std::string& tty() const { return tty_; }

  // Waits until `pred(terminal output so far)` holds; false on timeout or when tq ended first.
  bool WaitTty(const std::function<bool(const std::string&)>& pred,
               double timeout_s = kWaitTimeoutS) {
    const auto deadline = Clock::now() + Seconds(timeout_s);
    for (;;) {
      if (pred(tty_)) return true;
      if (Clock::now() >= deadline) return false;
      if (Pump(50)) return pred(tty_);
    }
  }

  // Waits for tq to end (killing it after `timeout_s`) and returns what it left.
  TtyResult Finish(double timeout_s = kCallTimeoutS) {
    const auto deadline = Clock::now() + Seconds(timeout_s);
    bool done = false;
    while (!done && Clock::now() < deadline) done = Pump(50);
    if (!done) {
      kill(pid_, SIGKILL);
      Reap(/*block=*/true);
      while (!Pump(50)) {
      }
      exit_code_ = -1;
    }
    return {*exit_code_, tty_, pipe_out_};
  }

 private:
  using Clock = std::chrono::steady_clock;
  static Clock::duration Seconds(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }

  // Moves what is there from the terminal and the pipe, waiting at most `timeout_ms`; true once
  // tq has exited and both are at their end.
  bool Pump(int timeout_ms) {
    pollfd fds[2] = {{master_, POLLIN, 0}, {pipe_, POLLIN, 0}};
    if (master_ >= 0 || pipe_ >= 0) {
      const int n = poll(fds, 2, timeout_ms);
      if (n < 0 && errno != EINTR) FAIL("poll: " << strerror(errno));
    }
    if (master_ >= 0 && fds[0].revents != 0) Drain(master_, tty_);
    if (pipe_ >= 0 && fds[1].revents != 0) Drain(pipe_, pipe_out_);
    if (master_ < 0 && pipe_ < 0) Reap(/*block=*/true);
    return exit_code_.has_value();
  }

  // Reads one chunk of `fd` into `sink`; closes it at its end (EIO on a terminal's master).
  static void Drain(int& fd, std::string& sink) {
    char buf[65536];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      sink.append(buf, static_cast<size_t>(n));
    } else if (!(n < 0 && (errno == EINTR || errno == EAGAIN))) {
      close(fd);
      fd = -1;
    }
  }

  void Reap(bool block) {
    if (exit_code_) return;
    int status = 0;
    pid_t r;
    do r = waitpid(pid_, &status, block ? 0 : WNOHANG);
    while (r < 0 && errno == EINTR);
    if (r == pid_) exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  pid_t pid_ = -1;
  int master_ = -1, pipe_ = -1;
  std::string tty_, pipe_out_;
  std::optional<int> exit_code_;
};

// `text` without its SGR colour codes.
std::string WithoutSgr(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "\033[") == 0) {
      const size_t end = text.find_first_not_of("0123456789;", i + 2);
      if (end != std::string::npos && text[end] == 'm') {
        i = end;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

// The lines the progress bar drew: each piece after a carriage return, without its erase code.
std::vector<std::string> DrawnLines(const std::string& tty) {
  std::vector<std::string> lines;
  size_t at = tty.find('\r');
  while (at != std::string::npos) {
    const size_t next = tty.find('\r', at + 1);
    std::string piece = tty.substr(at + 1, next == std::string::npos ? next : next - at - 1);
    const size_t erase = piece.find("\033[K");
    if (erase != std::string::npos) piece.erase(erase);
    lines.push_back(piece);
    at = next;
  }
  return lines;
}

}  // namespace

TEST_CASE("tq wait draws its progress on a terminal, clears it, and never on a pipe or --json") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string ok = Submit(d, {"--", "true"});
  const std::string bad = Submit(d, {"--", "sh", "-c", "exit 3"});
  const std::string slow =
      Submit(d, {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"});
  REQUIRE(WaitState(d, ok, "succeeded"));
  REQUIRE(WaitState(d, bad, "failed"));
  const std::string failure = "tq: task " + bad + " failed (exit): exit 3\n";

  SUBCASE("on a terminal: counts while it waits, then a clear line and the usual messages") {
    TtyProcess wait(d, {"wait", ok, bad, slow}, OnTty::kStderr);
    REQUIRE_MESSAGE(wait.WaitTty([](const std::string& tty) {
      return tty.find("2/3 done  1 failed") != std::string::npos;
    }),
                    "terminal so far: " << wait.tty());
    WriteFile(gate, "");
    const TtyResult r = wait.Finish();
    INFO("terminal: " << r.tty);
    CHECK(r.exit_code == 3);  // unchanged: the first failure's own exit code
    CHECK(r.pipe == "");      // stdout stays empty
    const size_t clear = r.tty.rfind("\r\033[K");
    REQUIRE(clear != std::string::npos);
    CHECK(r.tty.substr(clear + 4) == failure);  // the line is erased before the messages
    CHECK(r.tty.find('\n') == r.tty.size() - 1);
    const std::vector<std::string> lines = DrawnLines(r.tty.substr(0, clear + 1));
    REQUIRE(!lines.empty());
    for (const std::string& line : lines) {
      CAPTURE(line);
      CHECK(line.size() < kColumns);  // short of the last column
      if (!line.empty()) CHECK(line.find("/3 done") != std::string::npos);
    }
    CHECK(lines.front().find("[") == 0);  // 100 columns: room for the bar
    CHECK(lines.front().find("elapsed") != std::string::npos);
    CHECK(lines.front().find("/s") != std::string::npos);
    CHECK(lines.front().find("ETA") != std::string::npos);
  }

  SUBCASE("on a pipe: only the usual messages") {
    WriteFile(gate, "");
    const RunResult r = Tq(d, {"wait", ok, bad, slow});
    CHECK(r.exit_code == 3);
    CHECK(r.out == "");
    CHECK(r.err == failure);
  }

  SUBCASE("--json on a terminal: no progress") {
    WriteFile(gate, "");
    TtyProcess wait(d, {"wait", "--json", ok, bad, slow}, OnTty::kStderr);
    const TtyResult r = wait.Finish();
    CHECK(r.exit_code == 3);
    CHECK(r.tty == failure);
    CHECK(JsonLines(r.pipe).size() == 3);
  }

  SUBCASE("one id on a terminal: no progress") {
    TtyProcess wait(d, {"wait", bad}, OnTty::kStderr);
    const TtyResult r = wait.Finish();
    CHECK(r.exit_code == 3);
    CHECK(r.tty == failure);
  }
}

TEST_CASE("tq list colours states on a terminal only, never with NO_COLOR or --json") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string ok = Submit(d, {"--", "true"});
  const std::string bad = Submit(d, {"--", "false"});
  REQUIRE(WaitState(d, ok, "succeeded"));
  REQUIRE(WaitState(d, bad, "failed"));
  const RunResult piped = Tq(d, {"list"});
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.out.find('\033') == std::string::npos);
  REQUIRE(piped.out.find("succeeded") != std::string::npos);

  SUBCASE("on a terminal: each state in its colour, columns as on a pipe") {
    TtyProcess list(d, {"list"}, OnTty::kStdout);
    const TtyResult r = list.Finish();
    INFO("terminal: " << r.tty);
    CHECK(r.exit_code == 0);
    CHECK(r.tty.find("\033[32msucceeded\033[0m") != std::string::npos);
    CHECK(r.tty.find("\033[31mfailed\033[0m") != std::string::npos);
    CHECK(r.tty.substr(0, r.tty.find('\n')).find('\033') == std::string::npos);  // plain header
    CHECK(WithoutSgr(r.tty) == piped.out);  // padded on the visible text
  }

  SUBCASE("on a terminal with NO_COLOR=1: no colour") {
    TtyProcess list(d, {"list"}, OnTty::kStdout, {"NO_COLOR=1"});
    const TtyResult r = list.Finish();
    CHECK(r.exit_code == 0);
    CHECK(r.tty == piped.out);
  }

  SUBCASE("an empty NO_COLOR counts as unset") {
    TtyProcess list(d, {"list"}, OnTty::kStdout, {"NO_COLOR="});
    const TtyResult r = list.Finish();
    CHECK(r.exit_code == 0);
    CHECK(r.tty.find("\033[32msucceeded\033[0m") != std::string::npos);
  }

  SUBCASE("--json on a terminal: no colour") {
    TtyProcess list(d, {"list", "--json"}, OnTty::kStdout);
    const TtyResult r = list.Finish();
    CHECK(r.exit_code == 0);
    CHECK(r.tty.find('\033') == std::string::npos);
    CHECK(JsonLines(r.tty).size() == 2);
  }

  SUBCASE("tq status on a terminal: its state in colour too") {
    TtyProcess status(d, {"status", bad}, OnTty::kStdout);
    const TtyResult r = status.Finish();
    CHECK(r.exit_code == 0);
    CHECK(r.tty.find("\033[31mfailed (exit)\033[0m") != std::string::npos);
  }
}

TEST_CASE("tq cancel on a terminal says what it waits for while a task ignores TERM") {
  TestDaemon d("kill_grace = \"2s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string ready = d.dir() + "/ready";
  const std::string stubborn =
      Submit(d, {"--", "sh", "-c",
                 "trap '' TERM; touch " + Quoted(ready) + "; while :; do sleep 0.05; done"});
  REQUIRE(WaitFor([&] { return access(ready.c_str(), F_OK) == 0; }));

  TtyProcess cancel(d, {"cancel", stubborn}, OnTty::kStderr);
  const TtyResult r = cancel.Finish();
  INFO("terminal: " << r.tty);
  CHECK(r.exit_code == 0);
  CHECK(r.tty == "tq: waiting up to 2s for 1 running task to exit after TERM (then KILL)\n");
  CHECK(r.pipe.find(stubborn + " cancelled") == 0);

  // A pending task ends at once: nothing to wait for, nothing said; on a pipe, never.
  const std::string later = Submit(d, {"--delay", "1h", "--", "true"});
  TtyProcess pending(d, {"cancel", later}, OnTty::kStderr);
  CHECK(pending.Finish().tty == "");
}
