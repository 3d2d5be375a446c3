// Issue 23, A3: what one user's clients may make tqd hold. Sixty connections, each with an
// unfinished 16 MiB frame or with responses it never reads, made tqd's RSS go from 17 MB to
// about 1 GB; the bytes buffered for a user's clients are now bounded (64 MiB), and another
// user is still served.
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/raw_client.h"
#include "support/sanitized.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr int kConnections = 60;  // of the 64 a user may hold
constexpr size_t kFrameLength = 16u << 20;
constexpr long kBoundKiB = 200 * 1024;

// A field of /proc/PID/status in KiB ("VmRSS:", "VmHWM:" the peak); -1 when it cannot be read.
long StatusKiB(pid_t pid, const std::string& field) {
  for (const std::string& line : FileLines("/proc/" + std::to_string(pid) + "/status"))
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
  return -1;
}

// `count` connections of `uid` to `d`.
std::vector<std::unique_ptr<RawClient>> ConnectAs(const TestDaemon& d, uid_t uid, int count) {
  EffectiveUid as(uid);
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < count; ++i) clients.push_back(std::make_unique<RawClient>(d.socket()));
  return clients;
}

// Writes to each of `clients` a frame announcing kFrameLength bytes and all of it but the last
// byte, as fast as tqd takes it, until tqd takes nothing more from any of them for a second:
// then it holds all it will. Returns the bytes it took, or 0 when that took past the wait bound.
size_t FeedUnfinishedFrames(const std::vector<std::unique_ptr<RawClient>>& clients) {
  const std::string frame = LengthPrefix(kFrameLength) + std::string(kFrameLength - 1, ' ');
  std::vector<size_t> sent(clients.size(), 0);
  std::vector<bool> closed(clients.size(), false);
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    bool progress = false;
    std::vector<pollfd> full;
    for (size_t i = 0; i < clients.size(); ++i) {
      if (closed[i] || sent[i] == frame.size()) continue;
      const size_t n = std::min<size_t>(frame.size() - sent[i], 1u << 20);
      const ssize_t took = clients[i]->TrySend(std::string_view(frame).substr(sent[i], n));
      if (took < 0) {
        closed[i] = true;
      } else if (took > 0) {
        sent[i] += static_cast<size_t>(took);
        progress = true;
      } else {
        full.push_back(pollfd{clients[i]->fd(), POLLOUT, 0});
      }
    }
    if (std::chrono::steady_clock::now() > give_up) return 0;
    if (progress) continue;
    if (full.empty()) break;  // every frame sent but its last byte (or its connection closed)
    if (poll(full.data(), full.size(), 1000) == 0) break;  // none writable for a second
  }
  size_t total = 0;
  for (size_t n : sent) total += n;
  return total;
}

// The index of the first of `clients` tqd answered or closed within `timeout_ms`; -1 if none.
int FirstAnswered(const std::vector<std::unique_ptr<RawClient>>& clients, int timeout_ms) {
  std::vector<pollfd> fds;
  for (const auto& c : clients) fds.push_back(pollfd{c->fd(), POLLIN, 0});
  if (poll(fds.data(), fds.size(), timeout_ms) <= 0) return -1;
  for (size_t i = 0; i < fds.size(); ++i)
    if (fds[i].revents != 0) return static_cast<int>(i);
  return -1;
}

// Times `tq ping` as `who`, prints the latency with `what`, and checks it answered.
void PingAs(const TestDaemon& d, const TempUser& who, const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  const RunResult ping = TqAs(d, who.run_as(), {"ping"});
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("another user's tq ping " << what << ": " << ms << " ms");
  CHECK_MESSAGE(ping.exit_code == 0, ping.err);
}

}  // namespace

TEST_CASE("60 unfinished 16 MiB frames of one user make tqd hold 64 MiB, not a GiB" *
          doctest::test_suite("long")) {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser attacker, other;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);  // others may reach the socket (0666 as root)
  const pid_t tqd = d.DaemonPid();
  const long before = StatusKiB(tqd, "VmRSS:");
  REQUIRE(before > 0);

  const auto frames = ConnectAs(d, attacker.uid(), kConnections);
  const size_t taken = FeedUnfinishedFrames(frames);
  REQUIRE_MESSAGE(taken > 0, "tqd kept taking bytes for a minute");
  const long peak = StatusKiB(tqd, "VmHWM:");
  MESSAGE("tqd took " << (taken >> 20) << " MiB of " << kConnections << " unfinished frames; RSS "
                      << before << " KiB before, peak " << peak << " KiB");
  // The user's room: about four whole frames read, the others wait (before: all of them, 1 GiB).
  CHECK(taken >= 3 * kFrameLength);
  CHECK(taken < 8 * kFrameLength);
  // ASan keeps freed memory in quarantine: its RSS says nothing of what tqd holds.
  if (!kSanitized) CHECK(peak - before < kBoundKiB);
  CHECK(d.Log().find("not reading connection") != std::string::npos);

  // Another user is served meanwhile, a frame of 11 MiB (8 MiB of stdin) included.
  PingAs(d, other, "while one user holds 60 unfinished frames");
  const RunResult big = TrySubmitAs(d, other, {"--stdin", "--delay", "1h", "--", "cat"}, {},
                                    std::string(8u << 20, 'x'));
  CHECK_MESSAGE(big.exit_code == 0, big.err);

  // A frame that stopped arriving is dropped: its room goes to the next.
  const int dropped = FirstAnswered(frames, static_cast<int>(kWaitTimeoutS * 1000));
  REQUIRE(dropped >= 0);
  const auto refusal = frames[static_cast<size_t>(dropped)]->ReadFrame(kWaitTimeoutS);
  REQUIRE(refusal.has_value());
  CHECK((*refusal)["error"]["code"] == "limit");
  CHECK((*refusal)["error"]["message"].get<std::string>().starts_with("frame: "));
  // ASan keeps freed memory in quarantine: its RSS says nothing of what tqd holds.
  if (!kSanitized) CHECK(StatusKiB(tqd, "VmHWM:") - before < kBoundKiB);
  CHECK(d.Alive());
}

TEST_CASE("60 event followers of one user that never read make tqd hold 64 MiB, not a GiB") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser attacker, other;
  TestDaemon d("[user_limits]\nsubmit_burst = 20000\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);
  const pid_t tqd = d.DaemonPid();
  // Root's follower reads every event: it says when all were sent.
  auto watcher = TqBackground(d, {"events", "-f"});
  size_t scanned = 0, newlines = 0;  // counted as the output grows (to 6.5 MiB)
  const auto events_seen = [&](size_t n) {
    return watcher->WaitOutput([&](const std::string& out) {
      newlines += static_cast<size_t>(
          std::count(out.begin() + static_cast<long>(scanned), out.end(), '\n'));
      scanned = out.size();
      return newlines >= n;
    });
  };

  const auto followers = ConnectAs(d, attacker.uid(), kConnections);
  for (const auto& f : followers)
    REQUIRE(f->SendFrame(R"({"proto":1,"type":"events","follow":true})"));
  // Each is subscribed once it has the event of a first task.
  SubmitAs(d, attacker, {"--delay", "1h", "--", "true"});
  for (const auto& f : followers) {
    const auto event = f->ReadFrame(kWaitTimeoutS);
    REQUIRE(event.has_value());
    REQUIRE(event->contains("event"));
  }
  REQUIRE(events_seen(1));
  const long before = StatusKiB(tqd, "VmRSS:");
  REQUIRE(before > 0);

  // 1,500 tasks with 32 labels of 120 bytes: about 6.5 MiB of events for each follower (before:
  // 60 times that held, 390 MiB).
  std::vector<std::string> args = {"--batch", "--delay", "1h"};
  for (int i = 0; i < 32; ++i) {
    args.push_back("--label");
    args.push_back(std::to_string(i) + std::string(120, 'l'));
  }
  std::string lines;
  for (int i = 0; i < 1500; ++i) lines += "true\n";
  const RunResult batch = TrySubmitAs(d, attacker, args, {}, lines);
  REQUIRE_MESSAGE(batch.exit_code == 0, batch.err);
  REQUIRE(events_seen(1501));
  const long peak = StatusKiB(tqd, "VmHWM:");
  MESSAGE("tqd RSS " << before << " KiB before 1,500 events to 60 followers, peak " << peak
                     << " KiB");
  // ASan keeps freed memory in quarantine: its RSS says nothing of what tqd holds.
  if (!kSanitized) CHECK(peak - before < kBoundKiB);
  CHECK(d.Log().find("of uid " + std::to_string(attacker.uid()) +
                     ": it does not read its responses") != std::string::npos);
  PingAs(d, other, "after one user's followers stopped reading");
  CHECK(d.Alive());
}

TEST_CASE("a large frame that stops arriving is dropped after about a second, not ten") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RawClient stalled(d.socket());
  const auto start = std::chrono::steady_clock::now();
  // 100 KiB of a 1 MiB frame, then nothing: its pace earns it 0.1 s past a second's grace.
  REQUIRE(stalled.SendBytes(LengthPrefix(1u << 20) + std::string(100u << 10, ' ')));
  const auto refusal = stalled.ReadFrame(kWaitTimeoutS);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("a stalled 1 MiB frame was dropped after " << s << " s");
  REQUIRE(refusal.has_value());
  CHECK((*refusal)["error"]["code"] == "limit");
  const std::string message = (*refusal)["error"]["message"];
  CHECK(
      message.starts_with("frame: a request of 1048580 bytes must keep arriving at 1048576 "
                          "bytes a second; 102404 bytes came in "));
  CHECK(stalled.WaitClosed(kWaitTimeoutS));
  // A small frame sent whole is still served on a new connection.
  CHECK(Tq(d, {"ping"}).exit_code == 0);
}
