// tq: the command-line client of the tq task queue.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/arg_checks.h"
#include "cli/commands/commands.h"
#include "cli/full_tq.h"
#include "core/model/quote.h"

namespace {

// The top-level parser. With prefix_command() it keeps, untouched, every argument from the
// first one it cannot place (the task's command, as with nice, timeout and sudo).
class RootApp : public CLI::App {
 public:
  using CLI::App::App;
  /// The arguments left over, byte for byte.
  std::vector<std::string> Extras() const { return remaining(); }
  /// True when the first argument left over looked like an option: an unknown one.
  bool FirstExtraIsOption() const {
    return !missing_.empty() && missing_.front().first != CLI::detail::Classifier::NONE;
  }
};

// The spelling tq's durations use for a unit a person may write as a word ("10 minutes"), or
// nullptr when `word` is no unit.
const char* UnitSpelling(std::string_view word) {
  static const std::pair<const char*, std::vector<std::string_view>> kUnits[] = {
      {"ms", {"ms", "msec", "msecs", "millisecond", "milliseconds"}},
      {"s", {"s", "sec", "secs", "second", "seconds"}},
      {"m", {"m", "min", "mins", "minute", "minutes"}},
      {"h", {"h", "hr", "hrs", "hour", "hours"}},
      {"d", {"d", "day", "days"}},
      {"w", {"w", "week", "weeks"}},
  };
  for (const auto& [spelling, words] : kUnits)
    for (std::string_view w : words)
      if (w == word) return spelling;
  return nullptr;
}

// `tq submit --timeout 10 minutes -- true` would run `minutes`: a duration option whose value is
// a bare number, followed by a unit word where the command starts, is refused naming the
// spelling (the command starts at `start`, an index into argv).
bool SplitDuration(char** argv, int start) {
  static const std::set<std::string_view> kDurationOptions = {
      "--timeout", "--delay", "--pending-ttl", "--backoff-base", "--backoff-max"};
  if (start < 3 || kDurationOptions.count(argv[start - 2]) == 0) return false;
  const std::string_view number = argv[start - 1];
  const char* unit = UnitSpelling(argv[start]);
  if (unit == nullptr || number.empty() ||
      number.find_first_not_of("0123456789") != std::string_view::npos)
    return false;
  std::fprintf(stderr,
               "tq: %s: \"%s %s\" is two arguments, and %s would be run as the command; write "
               "the duration as one word: %s%s (units ms s m h d w)\n",
               argv[start - 2], argv[start - 1], argv[start], tq::Quote(argv[start]).c_str(),
               argv[start - 1], unit);
  return true;
}

// A command of tq: its name and what adds it to the parser.
struct CommandEntry {
  std::string_view name;
  tq::Command (*add)(CLI::App& app, const tq::GlobalOptions& g);
};

// tq's commands, in the order its help lists them.
constexpr CommandEntry kCommands[] = {
    {"submit", tq::AddSubmit},
    {"status", tq::AddStatus},
    {"list", tq::AddList},
    {"wait", tq::AddWait},
    {"cancel", tq::AddCancel},
    {"logs", tq::AddLogs},
    {"ping", tq::AddPing},
    {"version", tq::AddVersion},
    {"retry", tq::AddRetry},
    {"queue", tq::AddQueue},
    {"jobs", tq::AddJobs},
    {"reload", tq::AddReload},
    {"cron", tq::AddCron},
    {"stats", tq::AddStats},
    {"events", tq::AddEvents},
    {"clean", tq::AddClean},
    {"update", tq::AddUpdate},
    {"hold", [](CLI::App& app, const tq::GlobalOptions& g) { return tq::AddHold(app, g, false); }},
    {"release",
     [](CLI::App& app, const tq::GlobalOptions& g) { return tq::AddHold(app, g, true); }},
    {"resources", tq::AddResources},
    {"hosts", tq::AddHosts},
    {"web", tq::AddWeb},
};

// The command `argv` names: its first word that is not one of tq's own options (--socket PATH,
// --json); "" when another option comes first (--help, --version, a wrong one) or none is named.
std::string_view CommandWord(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--socket") {
      ++i;
    } else if (arg != "--json" && arg.rfind("--socket=", 0) != 0) {
      return arg.empty() || arg[0] == '-' ? std::string_view() : arg;
    }
  }
  return {};
}

int Run(int argc, char** argv) {
  tq::GlobalOptions g;
  // Everything after the first `--` is the task's argv (or its end, when the command started
  // before it), never seen by the option parser.
  int parsed_argc = argc;
  bool saw_dashes = false;
  std::vector<std::string> after_dashes;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      saw_dashes = true;
      after_dashes.assign(argv + i + 1, argv + argc);
      parsed_argc = i;
      break;
    }
  }

  RootApp app{"tq - a task queue and cron replacement for one host"};
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--socket", g.socket,
                 "the daemon's socket (default: $TQ_SOCKET, the user "
                 "socket, then /run/tq/tq.sock)");
  app.add_flag("--json", g.json, "machine-readable output (JSON; times in RFC 3339 UTC)");
  bool version = false;
  app.add_flag("-V,--version", version, "print the versions of tq and tqd (as tq version does)");
  // Only the named command's parser is built when a command is named (building all of them was a
  // fifth of a `tq` process's CPU); every one of them otherwise, for help and refusals.
  const std::string_view named = CommandWord(argc, argv);
  const bool known = std::any_of(std::begin(kCommands), std::end(kCommands),
                                 [&](const CommandEntry& c) { return named == c.name; });
  std::vector<tq::Command> commands;
  for (const CommandEntry& c : kCommands)
    if (!known || named == c.name) commands.push_back(c.add(app, g));
  // Set after the subcommands exist, so they do not inherit it: only `submit` takes a command.
  app.prefix_command();
  tq::ApplyOptionRules(app, {"--socket"});
  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    // "tq", "tq --frob" or "tq frobnicate": say what is wrong and name the commands, instead of
    // "A subcommand is required".
    if (app.get_subcommands().empty() && dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names += " " + sub->get_name();
      const std::vector<std::string> extras = app.Extras();
      if (extras.empty() && version) {  // `tq --version`: as `tq version`
        for (const auto& c : commands)
          if (c.app->get_name() == "version") return c.run();
      }
      if (extras.empty()) {  // bare `tq`: what it can do, as a usage error
        std::fputs(app.help().c_str(), stderr);
        return 2;
      }
      const std::string what =
          tq::Quote(extras.front()) +
          (app.FirstExtraIsOption() ? " is not an option" : " is not a command");
      std::fprintf(stderr, "tq: %s (commands:%s)\n", what.c_str(), names.c_str());
      return 2;
    }
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    std::fprintf(stderr, "%s\n", tq::UsageMessage(e).c_str());
    return 2;
  }
  const std::vector<std::string> extras = app.Extras();
  const tq::Command* chosen = nullptr;
  for (const auto& c : commands)
    if (c.app->parsed()) chosen = &c;
  if (chosen == nullptr) return 2;
  const std::string name = chosen->app->get_name();
  if (version) {  // before a command, or after one that has no --version of its own
    std::fprintf(stderr, "tq: %s: -V/--version goes alone: tq --version (or tq version)\n",
                 name.c_str());
    return 2;
  }
  if (!extras.empty() && app.FirstExtraIsOption()) {
    std::fprintf(stderr, "tq: %s: %s is not an option (see tq %s --help)\n", name.c_str(),
                 tq::Quote(extras.front()).c_str(), name.c_str());
    return 2;
  }
  if (name != "submit" && (!extras.empty() || saw_dashes)) {
    const std::string what = extras.empty() ? "--" : extras.front();
    std::fprintf(stderr, "tq: %s: unexpected argument %s (see tq %s --help)\n", name.c_str(),
                 tq::Quote(what).c_str(), name.c_str());
    return 2;
  }
  if (name == "submit" && !extras.empty()) {
    // The command is the tail of the parsed arguments: it starts where the extras do (a search
    // for its first word could stop at an option's value that happens to be the same word).
    const int start = parsed_argc - static_cast<int>(extras.size());
    const bool tail = start > 0 && std::equal(extras.begin(), extras.end(), argv + start);
    if (tail && SplitDuration(argv, start)) return 2;
  }
  // The command starts at the first argument that is not an option; a `--` after that start
  // is one of its arguments.
  g.command = extras;
  if (!extras.empty() && saw_dashes) g.command.emplace_back("--");
  g.command.insert(g.command.end(), after_dashes.begin(), after_dashes.end());
  return chosen->run();
}

}  // namespace

int main(int argc, char** argv) {
  // Commands return errors as values; this is the last resort for anything thrown (a JSON
  // library error, memory exhaustion): a message and exit 1, never an abort.
  tq::KeepArguments(argv);  // for what tq-full runs in tq's place
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tq: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "tq: internal error\n");
  }
  return 1;
}
