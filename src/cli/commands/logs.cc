// tq logs: print a task's captured output; -f follows it until the task ends.
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/commands/reconnect.h"
#include "cli/render.h"
#include "core/proto/wire_bytes.h"

namespace tq {

namespace {
// How often `logs -f` asks for more while a task runs and printed nothing new.
constexpr int kFollowPollMs = 200;

// Prints one chunk of output: its bytes, or with --json one line
// {"id", "attempt", "stream", "offset", "data"} (data as the protocol carries bytes).
void PrintChunk(const LogsRequest& req, int attempt, const nlohmann::json& data,
                const std::string& bytes, bool json) {
  if (bytes.empty()) return;
  if (json) {
    const nlohmann::json line{{"id", req.id},
                              {"attempt", attempt},
                              {"stream", req.stderr_stream ? "stderr" : "stdout"},
                              {"offset", req.offset},
                              {"data", data}};
    std::printf("%s\n", line.dump().c_str());
  } else {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  }
  std::fflush(stdout);
}
}  // namespace

Command AddLogs(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("logs", "Print a task's output (stdout, or --stderr)");
  struct Flags {
    long long id = 0;
    int attempt = 0;
    bool follow = false, stderr_stream = false;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("id", f->id, "task id")->required();
  sub->add_flag("-f,--follow", f->follow, "keep printing output until the task ends");
  sub->add_flag("--stderr", f->stderr_stream, "print standard error instead of standard output");
  sub->add_option("--attempt", f->attempt, "this attempt (1 is the first; default: the latest)")
      ->check(CLI::PositiveNumber);
  return {sub, [f, &g]() {
            RealClock clock;
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            LogsRequest req{f->id, f->stderr_stream, 0, f->attempt};
            int attempt = -1;
            for (;;) {
              auto r = client->Call(req);
              if (!r.ok() && r.status().code() == ErrorCode::kUnavailable && f->follow) {
                client = ConnectUntil(g.socket, clock.MonoNow() + kReconnectWindowMs);
                if (!client.ok()) return Fail(client.status());
                continue;
              }
              if (!r.ok()) return Fail(r.status());
              const int now_attempt = (*r)["attempt"].get<int>();
              if (attempt >= 0 && now_attempt != attempt) {  // a new attempt: start over
                req.offset = 0;
                attempt = now_attempt;
                continue;
              }
              attempt = now_attempt;
              auto data = BytesFromJson((*r)["data"], "data");
              if (!data.ok()) return Fail(data.status());
              PrintChunk(req, attempt, (*r)["data"], *data, g.json);
              req.offset = (*r)["offset"].get<int64_t>();
              if ((*r)["eof"].get<bool>()) return 0;
              if (data->empty()) {
                if (!f->follow) return 0;
                SleepMs(kFollowPollMs);
              }
            }
          }};
}

}  // namespace tq
