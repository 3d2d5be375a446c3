// tq events -f: print every state change of the tasks one may see, as JSON lines (SPEC 7a).
#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/commands/reconnect.h"
#include "cli/render.h"

namespace tq {

namespace {

// SIGINT ends a follow as a success: each line was flushed whole, so nothing is left half out.
void ExitOnInterrupt(int) {
  _exit(0);
}

// Follows the events, reconnecting across daemon restarts for up to kReconnectWindowMs each
// time; returns the exit code.
int Follow(const GlobalOptions& g) {
  struct sigaction sa {};
  sa.sa_handler = ExitOnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  RealClock clock;
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  for (;;) {
    Status st = client->Send(EventsRequest{true});
    while (st.ok()) {
      auto frame = client->Read();
      if (!frame.ok()) {
        st = frame.status();
        break;
      }
      if (Status err = ResponseStatus(*frame); !err.ok()) return Fail(err);
      if (frame->value("end", false)) return 0;
      if (!frame->contains("event")) continue;
      std::printf("%s\n", (*frame)["event"].dump().c_str());
      std::fflush(stdout);
    }
    if (st.code() != ErrorCode::kUnavailable) return Fail(st);
    // The daemon went away (a restart, or it dropped a follower that did not read): events of
    // the gap are not replayed.
    client = ConnectUntil(g.socket, clock.MonoNow() + kReconnectWindowMs);
    if (!client.ok()) return Fail(client.status());
  }
}

}  // namespace

Command AddEvents(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("events", "Print task state changes as JSON lines (with -f)");
  auto follow = std::make_shared<bool>(false);
  sub->add_flag("-f,--follow", *follow,
                "keep printing each state change as it happens (required: no past events "
                "are kept); the output is always JSON, one event per line");
  return {sub, [follow, &g]() {
            if (!*follow) {
              std::fprintf(stderr,
                           "tq: events: no past events are kept; use tq events -f to follow "
                           "changes as they happen\n");
              return 2;
            }
            return Follow(g);
          }};
}

}  // namespace tq
