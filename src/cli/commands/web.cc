// tq web: the web console (SPEC 15). Its flags are read here, for tq's help, completions and
// errors; the console itself is tq-web, a program of its own that tq runs in its place, so
// that every other command loads neither libmicrohttpd nor GnuTLS.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands/commands.h"
#include "cli/full_tq.h"

namespace tq {

CLI::App* AddWebCommand(CLI::App& app, WebFlags& f) {
  auto* sub = app.add_subcommand("web", "Serve the web console");
  sub->add_option("--listen", f.listen,
                  "ADDR:PORT or unix:PATH to listen on (default 127.0.0.1:8377)");
  sub->add_option("--token-file", f.token_file,
                  "read the sign-in token from this file (yours, mode 0600) instead of making "
                  "one; it is not printed");
  sub->add_flag("--read-only", f.read_only, "show everything, change nothing");
  auto* header = sub->add_option("--trust-user-header", f.user_header,
                                 "act for the user a proxy in front names in this header (unix: "
                                 "--listen only; no token; root acts as anyone)");
  header->excludes(sub->get_option("--token-file"));
  return sub;
}

Command AddWeb(CLI::App& app, const GlobalOptions& g) {
  auto f = std::make_shared<WebFlags>();
  CLI::App* sub = AddWebCommand(app, *f);
  return {sub, [f, &g]() {
            // tq-web in tq's place (the same process, so a service manager keeps watching it).
            std::vector<std::string> args = {"tq-web"};
            // Each value joined to its option, so that one beginning with '-' stays a value.
            if (!g.socket.empty()) args.push_back("--socket=" + g.socket);
            args.emplace_back("web");
            if (!f->listen.empty()) args.push_back("--listen=" + f->listen);
            if (!f->token_file.empty()) args.push_back("--token-file=" + f->token_file);
            if (!f->user_header.empty()) args.push_back("--trust-user-header=" + f->user_header);
            if (f->read_only) args.emplace_back("--read-only");
            std::vector<char*> argv;
            for (std::string& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            const Status failed = RunHelper("tq-web", TQ_WEB_INSTALL_PATH, argv.data());
            std::fprintf(stderr, "tq web: %s\n", failed.message().c_str());
            return 1;
          }};
}

}  // namespace tq
