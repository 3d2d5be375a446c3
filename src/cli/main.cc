// tq: the command-line client of the tq task queue.
#include <cstdio>
#include <cstring>

#include "cli/commands/commands.h"

int main(int argc, char** argv) {
  tq::GlobalOptions g;
  // Everything after the first `--` is the task's argv, untouched by the option parser.
  int parsed_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      g.has_command = true;
      g.command.assign(argv + i + 1, argv + argc);
      parsed_argc = i;
      break;
    }
  }

  CLI::App app{"tq - a task queue and cron replacement for one host"};
  app.require_subcommand(1);
  app.fallthrough();
  app.add_option("--socket", g.socket,
                 "the daemon's socket (default: $TQ_SOCKET, the user "
                 "socket, then /run/tq/tq.sock)");
  app.add_flag("--json", g.json, "machine-readable output (JSON; times in RFC 3339 UTC)");
  const std::vector<tq::Command> commands = {
      tq::AddSubmit(app, g), tq::AddStatus(app, g), tq::AddList(app, g), tq::AddWait(app, g),
      tq::AddCancel(app, g), tq::AddLogs(app, g),   tq::AddPing(app, g), tq::AddVersion(app, g),
      tq::AddRetry(app, g),  tq::AddQueue(app, g),  tq::AddCron(app, g),
  };
  try {
    app.parse(parsed_argc, argv);
  } catch (const CLI::ParseError& e) {
    // "tq frobnicate": name the word and the commands instead of "A subcommand is required".
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      std::string names;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names += " " + sub->get_name();
      std::fprintf(stderr, "tq: \"%s\" is not a command (one of:%s)\n",
                   app.remaining().front().c_str(), names.c_str());
      return 2;
    }
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // usage errors exit 2
  }
  for (const auto& c : commands)
    if (c.app->parsed()) return c.run();
  return 2;
}
