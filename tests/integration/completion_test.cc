// The shell completions (src/cli/completions): the bash one, sourced in a plain bash, completes
// subcommands, flags, enumerated values, and the task ids, job names and queue names of a
// running tqd (nothing, quickly, when tqd is down or silent); it and the fish one complete every
// subcommand and long flag that `tq --help` and the --help of each subcommand print. The zsh
// one is checked for syntax. zsh and fish are optional: without them their cases are skipped.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "support/help_listing.h"
#include "support/jobs.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

const std::string kCompletions = std::string(TQ_SOURCE_DIR) + "/src/cli/completions/";

enum class Shell { kBash, kFish };

// What `shell` completes on the command line `words` (the last one is being completed, "" for a
// new word; bash gets them as its COMP_WORDS, so "--flag=value" is three words), without
// descriptions; the built tq comes first on PATH, and `env` ("NAME=VALUE") is added.
std::set<std::string> Complete(Shell shell, const std::vector<std::string>& words,
                               std::vector<std::string> env = {}) {
  std::string line;
  for (const std::string& w : words) line += (line.empty() ? "" : " ") + w;
  std::vector<std::string> argv;
  if (shell == Shell::kBash) {
    std::string quoted;
    for (const std::string& w : words) quoted += Quoted(w) + " ";
    argv = {"/bin/bash", "--norc", "--noprofile", "-c",
            "source " + Quoted(kCompletions + "tq.bash") + "\nCOMP_WORDS=(" + quoted +
                ")\nCOMP_CWORD=" + std::to_string(words.size() - 1) +
                "\nCOMP_LINE=" + Quoted(line) +
                "\nCOMP_POINT=${#COMP_LINE}\n_tq\nprintf '%s\\n' \"${COMPREPLY[@]}\""};
  } else {
    argv = {"/usr/bin/fish", "--no-config", "-c",
            "source " + Quoted(kCompletions + "tq.fish") + "; complete -C " + Quoted(line)};
  }
  env.push_back("PATH=" + std::string(TQ_BIN_DIR) + ":" + std::getenv("PATH"));
  Process p(argv, env);
  const RunResult r = p.Finish();
  INFO(line);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "");
  std::set<std::string> out;
  size_t pos = 0;
  while (pos < r.out.size()) {
    const size_t end = r.out.find('\n', pos);
    const std::string candidate = r.out.substr(pos, end - pos);
    if (!candidate.empty()) out.insert(candidate.substr(0, candidate.find('\t')));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out;
}

std::set<std::string> Bash(const std::vector<std::string>& words,
                           const std::vector<std::string>& env = {}) {
  return Complete(Shell::kBash, words, env);
}

// A command of tq with the subcommands and long flags its --help lists.
struct Command {
  std::vector<std::string> words;  // "tq", then the subcommands leading to it
  std::vector<std::string> subcommands, flags;
};

// `words` and every command under it, as their --help output describes them.
void CollectCommands(const std::vector<std::string>& words, std::vector<Command>* out) {
  HelpListing listing = ReadHelp("tq", {words.begin() + 1, words.end()});
  Command c{words, std::move(listing.subcommands), std::move(listing.flags)};
  out->push_back(c);
  for (const std::string& sub : c.subcommands) {
    std::vector<std::string> deeper = words;
    deeper.push_back(sub);
    CollectCommands(deeper, out);
  }
}

// Checks that `shell` completes each subcommand and long flag of each command of tq.
void CheckCoversHelp(Shell shell) {
  std::vector<Command> commands;
  CollectCommands({"tq"}, &commands);
  REQUIRE(commands.size() > 20);  // the walk found the nested subcommands
  for (const Command& c : commands) {
    std::vector<std::string> words = c.words;
    words.push_back("");
    const std::set<std::string> subcommands = Complete(shell, words);
    words.back() = "--";
    const std::set<std::string> flags = Complete(shell, words);
    std::string where;
    for (const std::string& w : c.words) where += w + " ";
    for (const std::string& sub : c.subcommands) {
      INFO(where << sub);
      CHECK(subcommands.count(sub) == 1);
    }
    for (const std::string& flag : c.flags) {
      INFO(where << flag);
      CHECK(flags.count(flag) == 1);
    }
  }
}

// An environment whose TQ_SOCKET names no socket, so only a --socket on the line reaches tqd.
std::vector<std::string> NoSocketEnv(const TestDaemon& d) {
  return {"TQ_SOCKET=" + d.dir() + "/absent.sock"};
}

}  // namespace

TEST_CASE("bash completes subcommands, nested subcommands, flags and enumerated values") {
  using S = std::set<std::string>;
  CHECK(Bash({"tq", "sta"}) == S{"stats", "status"});
  CHECK(Bash({"tq", "jobs", "e"}) == S{"edit", "enable"});
  CHECK(Bash({"tq", "queue", "p"}) == S{"pause"});
  CHECK(Bash({"tq", "cron", ""}) == S{"import", "next"});
  CHECK(Bash({"tq", "--js"}) == S{"--json"});
  CHECK(Bash({"tq", "submit", "--pri"}) == S{"--priority"});
  CHECK(Bash({"tq", "logs", "--std"}) == S{"--stderr"});
  CHECK(Bash({"tq", "list", "--state", "fa"}) == S{"failed"});
  CHECK(Bash({"tq", "list", "--state", "=", "fa"}) == S{"failed"});  // --state=fa
  CHECK(Bash({"tq", "list", "--state", "=", ""}).size() == 6);       // --state=
  CHECK(Bash({"tq", "submit", "--backoff", "ex"}) == S{"exponential"});
  CHECK(Bash({"tq", "submit", "-p", ""}) == S{"1", "2", "3", "4", "5"});
  CHECK(Bash({"tq", "cron", "next", "--dst", "b"}) == S{"both"});
  // A flag's value is not taken for a subcommand.
  CHECK(Bash({"tq", "--socket", "/nowhere", "queue", "--socket", "=", "/x", "re"}) == S{"resume"});
  // The task's command of tq submit: a program, then no more tq flags.
  CHECK(Bash({"tq", "submit", "--queue", "q", "ech"}).count("echo") == 1);
  CHECK(Bash({"tq", "submit", "--", "ech"}).count("echo") == 1);
  CHECK(Bash({"tq", "submit", "sh", "--pri"}).empty());
}

TEST_CASE("bash completes task ids, job names and queue names from a running tqd") {
  using S = std::set<std::string>;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("nightly.toml", JobFile("nightly", "0 3 * * *", "true"));
  Reload(d);
  const std::string done = Submit(d, {"--", "true"});
  const std::string failed = Submit(d, {"--", "false"});
  const std::string later = Submit(d, {"--queue", "batch", "--delay", "1h", "--", "true"});
  REQUIRE(WaitState(d, done, "succeeded"));
  REQUIRE(WaitState(d, failed, "failed"));
  const S all{done, failed, later};

  // The socket comes from --socket on the line (in either form), else from TQ_SOCKET.
  CHECK(Bash({"tq", "--socket", d.socket(), "status", ""}, NoSocketEnv(d)) == all);
  CHECK(Bash({"tq", "--socket", "=", d.socket(), "status", ""}, NoSocketEnv(d)) == all);
  CHECK(Bash({"tq", "status", "--socket", d.socket(), ""}, NoSocketEnv(d)) == all);
  const std::vector<std::string> env = {"TQ_SOCKET=" + d.socket()};
  CHECK(Bash({"tq", "status", ""}, env) == all);
  CHECK(Bash({"tq", "wait", done, ""}, env) == all);
  CHECK(Bash({"tq", "logs", "--stderr", ""}, env) == all);
  CHECK(Bash({"tq", "status", done, ""}, env).empty());  // it takes one id
  CHECK(Bash({"tq", "cancel", ""}, env) == S{later});
  CHECK(Bash({"tq", "retry", ""}, env) == S{failed});
  CHECK(Bash({"tq", "submit", "--after", ""}, env) == all);

  CHECK(Bash({"tq", "jobs", "show", ""}, env) == S{"nightly"});
  CHECK(Bash({"tq", "jobs", "run", "--force", "ni"}, env) == S{"nightly"});
  CHECK(Bash({"tq", "--socket", d.socket(), "jobs", "disable", ""}, NoSocketEnv(d)) ==
        S{"nightly"});

  CHECK(Bash({"tq", "submit", "--queue", "ba"}, env) == S{"batch"});
  CHECK(Bash({"tq", "queue", "pause", ""}, env).count("batch") == 1);
  CHECK(Bash({"tq", "list", "-q", ""}, env).count("batch") == 1);
}

TEST_CASE("bash completes no task ids, quickly, when tqd is down or does not answer") {
  TestDaemon d;
  d.Stop();
  CHECK(Bash({"tq", "status", ""}, {"TQ_SOCKET=" + d.socket()}).empty());
  CHECK(Bash({"tq", "jobs", "show", ""}, {"TQ_SOCKET=" + d.socket()}).empty());

  // A socket that accepts connections and never answers: tq is given a second.
  const std::string silent = d.dir() + "/silent.sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, silent.c_str(), sizeof(addr.sun_path) - 1);
  REQUIRE(bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(listen(fd, 8) == 0);
  const auto start = std::chrono::steady_clock::now();
  CHECK(Bash({"tq", "--socket", silent, "cancel", ""}, NoSocketEnv(d)).empty());
  // Generous against the 1 s timeout, far below the 60 s a hung call would take.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(15));
  close(fd);
}

TEST_CASE("bash completes every subcommand and long flag that tq --help shows") {
  CheckCoversHelp(Shell::kBash);
}

TEST_CASE("fish completes every subcommand and long flag, and task ids from tqd") {
  if (access("/usr/bin/fish", X_OK) != 0) TQ_SKIP("fish is not installed");
  CheckCoversHelp(Shell::kFish);
  CHECK(Complete(Shell::kFish, {"tq", "list", "--state", "fa"}) == std::set<std::string>{"failed"});
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "true"});
  CHECK(Complete(Shell::kFish, {"tq", "--socket", d.socket(), "status", ""}, NoSocketEnv(d)) ==
        std::set<std::string>{id});
}

TEST_CASE("the zsh completion parses") {
  if (access("/usr/bin/zsh", X_OK) != 0) TQ_SKIP("zsh is not installed");
  Process p({"/usr/bin/zsh", "-n", kCompletions + "_tq"}, {});
  const RunResult r = p.Finish();
  CHECK(r.err == "");
  CHECK(r.exit_code == 0);
}
