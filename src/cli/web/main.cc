// tq-web: the web console `tq web` runs (SPEC 15), with tq web's options.
#include <CLI/CLI.hpp>

#include "cli/commands/commands.h"
#include "cli/web/serve_web.h"

int main(int argc, char** argv) {
  CLI::App app{"tq-web - the web console of tq (run by tq web)"};
  tq::GlobalOptions g;
  app.add_option("--socket", g.socket, "the daemon's socket");
  tq::WebFlags f;
  tq::AddWebCommand(app, f);
  app.require_subcommand(1);
  CLI11_PARSE(app, argc, argv);
  return tq::ServeWeb(f, g);
}
