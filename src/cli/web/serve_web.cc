// tq-web's console (SPEC 15), one more client of tqd with the rights of the user who runs it:
// prints its sign-in address, serves until INT or TERM. A program of its own, so that `tq` loads
// neither libmicrohttpd nor GnuTLS (issue 51).
#include "cli/web/serve_web.h"

#include <signal.h>

#include <cstdio>
#include <memory>

#include "cli/client.h"
#include "cli/render.h"
#include "cli/web/http_server.h"
#include "cli/web/listen_address.h"
#include "cli/web/web_console.h"

namespace tq {

namespace {

// Blocks INT and TERM (before any thread starts, so every thread inherits it) and waits for
// one of them.
struct StopSignals {
  sigset_t set{};
  StopSignals() {
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
  }
  void Wait() const {
    int sig = 0;
    sigwait(&set, &sig);
  }
};

}  // namespace

int ServeWeb(const WebFlags& f, const GlobalOptions& g) {
  ListenAddress address = DefaultListenAddress();
  if (!f.listen.empty()) {
    auto parsed = ParseListenAddress(f.listen);
    if (!parsed.ok()) return Fail(parsed.status());
    address = *parsed;
  }
  const bool proxy = !f.user_header.empty();
  std::unique_ptr<WebAccess> access;
  if (proxy) {  // refused on TCP before anything listens
    auto made = WebAccess::BehindProxy(f.user_header, address);
    if (!made.ok()) return Fail(made.status());
    access = std::move(*made);
  }
  std::string token;  // the sign-in token of a console without a proxy
  if (!proxy) {
    auto made =
        f.token_file.empty() ? WebAccess::RandomToken() : WebAccess::TokenFromFile(f.token_file);
    if (!made.ok()) return Fail(made.status());
    token = std::move(*made);
  }
  if (!address.Local() && f.token_file.empty())
    std::fprintf(stderr,
                 "tq web: warning: %s is reachable from other machines; the token "
                 "below is all that guards it (use --token-file, or a proxy with "
                 "its own sign-in in front)\n",
                 address.Text().c_str());
  if (auto client = Client::Connect(g.socket); !client.ok())
    std::fprintf(stderr,
                 "tq web: warning: %s (the console shows errors until tqd "
                 "answers)\n",
                 client.status().message().c_str());
  const StopSignals stop;
  auto fd = OpenListener(address);
  if (!fd.ok()) return Fail(fd.status());
  const std::string sign_in =
      (address.unix_socket ? "" : "http://" + address.Text()) + "/login?token=";
  const std::string serving =
      address.unix_socket ? "serving on " + address.Text() + "; sign in at " : "";
  if (!proxy) {
    // A printed token signs in once; each sign-in prints the next.
    const bool printed = f.token_file.empty();
    auto made = WebAccess::Make(token, address, printed, [sign_in](const std::string& next) {
      std::printf("tq web: signed in; the next sign-in: %s%s\n", sign_in.c_str(), next.c_str());
      std::fflush(stdout);
    });
    if (!made.ok()) return Fail(made.status());
    access = std::move(*made);
  }
  auto console = std::make_shared<WebConsole>(std::move(access),
                                              WebApiContext{g.socket, f.read_only, std::nullopt});
  auto server = HttpServer::Start(
      *fd, HttpLimits{}, [console](const HttpRequest& r) { return console->Handle(r); },
      [console](const HttpPeer& peer) { return console->PeerHasSession(peer); });
  if (!server.ok()) return Fail(server.status());
  if (proxy)
    std::printf("tq web: serving on %s for the users its proxy names in %s\n",
                address.Text().c_str(), f.user_header.c_str());
  else if (!f.token_file.empty())  // kept out of the journal: the operator has the file
    std::printf("tq web: %s%s(the token in %s)\n", serving.c_str(), sign_in.c_str(),
                f.token_file.c_str());
  else
    std::printf("tq web: %s%s%s\n", serving.c_str(), sign_in.c_str(), token.c_str());
  std::fflush(stdout);
  stop.Wait();
  (*server)->Stop();
  return 0;
}

}  // namespace tq
