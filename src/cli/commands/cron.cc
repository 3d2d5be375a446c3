// tq cron: the group of commands about cron schedules (next, import).
#include "cli/commands/commands.h"

namespace tq {

Command AddCron(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("cron", "Check cron schedules, import crontabs");
  sub->require_subcommand(1);
  auto subcommands = std::make_shared<std::vector<Command>>();
  subcommands->push_back(AddCronNext(*sub, g));
  subcommands->push_back(AddCronImport(*sub, g));
  return {sub, [subcommands]() {
            for (const Command& c : *subcommands)
              if (c.app->parsed()) return c.run();
            return 2;
          }};
}

}  // namespace tq
