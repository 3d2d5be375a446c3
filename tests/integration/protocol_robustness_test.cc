// SPEC 9: malformed, oversized, truncated or unknown requests get an error (or a close) and never
// crash or stall the daemon; silent, non-reading and flooding clients block nobody.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "core/proto/protocol.h"
#include "support/raw_client.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
const char* kPingFrame = R"({"proto":1,"type":"ping"})";

// The error of a response frame; REQUIREs that it is one.
nlohmann::json ErrorOf(const std::optional<nlohmann::json>& frame) {
  REQUIRE_MESSAGE(frame.has_value(), "no response frame");
  CHECK((*frame)["ok"] == false);
  REQUIRE((*frame)["error"].is_object());
  return (*frame)["error"];
}

// A ping on `c` gets an ok answer.
void CheckPing(RawClient& c) {
  REQUIRE(c.SendFrame(kPingFrame));
  const auto r = c.ReadFrame(kWaitTimeoutS);
  REQUIRE(r.has_value());
  CHECK((*r)["ok"] == true);
  CHECK((*r)["proto"] == tq::kProtoVersion);
}
}  // namespace

TEST_CASE("garbage JSON in a well-formed frame gets an error and the connection stays usable") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RawClient c(d.socket());
  for (const char* garbage : {"{not json", "", "[1,2,3]", "42", "\"str\"", "{\"proto\":1}"}) {
    CAPTURE(garbage);
    REQUIRE(c.SendFrame(garbage));
    const nlohmann::json err = ErrorOf(c.ReadFrame(kWaitTimeoutS));
    CHECK(err["message"].is_string());
    CHECK(!err["message"].get<std::string>().empty());
  }
  CheckPing(c);
  CHECK(Tq(d, {"ping"}).exit_code == 0);
}

TEST_CASE("an oversized length gets an error frame and then the connection is closed") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RawClient c(d.socket());
  REQUIRE(c.SendBytes(std::string("\xff\xff\xff\xff", 4) + "{}"));
  const nlohmann::json err = ErrorOf(c.ReadFrame(kWaitTimeoutS));
  CHECK(err["code"] == "limit");
  CHECK(c.WaitClosed(kWaitTimeoutS));
  CHECK(Tq(d, {"ping"}).exit_code == 0);
}

TEST_CASE("non-UTF-8 bytes inside the JSON get an error and the daemon stays up") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RawClient c(d.socket());
  REQUIRE(c.SendFrame("{\"proto\":1,\"type\":\"ping\",\"x\":\"\xff\xc3\"}"));
  ErrorOf(c.ReadFrame(kWaitTimeoutS));
  REQUIRE(c.SendFrame("{\"proto\":1,\"type\":\"submit\",\"argv\":[\"\xc3(\"]}"));
  ErrorOf(c.ReadFrame(kWaitTimeoutS));
  CheckPing(c);
  CHECK(Tq(d, {"ping"}).exit_code == 0);
  CHECK(Tq(d, {"list"}).out.find('(') == std::string::npos);  // nothing was submitted
}

TEST_CASE("a wrong protocol version gets an error naming the served versions") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RawClient c(d.socket());
  REQUIRE(c.SendFrame(R"({"proto":99,"type":"ping"})"));
  const nlohmann::json err = ErrorOf(c.ReadFrame(kWaitTimeoutS));
  CHECK(err["code"] == "proto");
  const std::string msg = err["message"].get<std::string>();
  CHECK(msg.find("99") != std::string::npos);
  CHECK(msg.find(std::to_string(tq::kProtoVersion)) != std::string::npos);
  // The previous version is still served, when there is one; a version that never existed is not.
  const int previous = tq::kProtoVersion - 1;
  REQUIRE(c.SendFrame(R"({"proto":)" + std::to_string(previous) + R"(,"type":"ping"})"));
  const auto reply = c.ReadFrame(kWaitTimeoutS);
  REQUIRE(reply.has_value());
  CHECK((*reply)["ok"] == (previous >= tq::kMinProtoVersion));
}

TEST_CASE("an unknown request type or bad field gets an error but unknown fields are ignored") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  RawClient c(d.socket());
  REQUIRE(c.SendFrame(R"({"proto":1,"type":"launch-missiles"})"));
  nlohmann::json err = ErrorOf(c.ReadFrame(kWaitTimeoutS));
  CHECK(err["field"] == "type");
  CHECK(err["message"].get<std::string>().find("launch-missiles") != std::string::npos);
  REQUIRE(c.SendFrame(R"({"proto":1,"type":"status","id":"seven"})"));
  err = ErrorOf(c.ReadFrame(kWaitTimeoutS));
  CHECK(err["field"] == "id");
  REQUIRE(c.SendFrame(R"({"proto":1,"type":"submit","argv":["true"],"priority":9})"));
  err = ErrorOf(c.ReadFrame(kWaitTimeoutS));
  CHECK(err["field"] == "priority");
  REQUIRE(c.SendFrame(R"({"proto":1,"type":"ping","surprise":{"a":[1]}})"));
  const auto ok = c.ReadFrame(kWaitTimeoutS);
  REQUIRE(ok.has_value());
  CHECK((*ok)["ok"] == true);
}

TEST_CASE("truncated frames and abrupt disconnects leave the daemon serving") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  {
    RawClient c(d.socket());
    REQUIRE(c.SendBytes(LengthPrefix(100) + R"({"proto":1,)"));
  }  // closed mid-frame
  {
    RawClient c(d.socket());
    REQUIRE(c.SendBytes(std::string("\x00\x00", 2)));
  }  // closed mid-length
  {
    RawClient c(d.socket());
    REQUIRE(c.SendFrame(kPingFrame));
  }  // closed before reading the answer
  RawClient c(d.socket());
  CheckPing(c);
  CHECK(Tq(d, {"ping"}).exit_code == 0);
}

TEST_CASE("silent and non-reading and flooding clients block nobody") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string long_task = Submit(d, {"--", "sleep", "600"});
  REQUIRE(WaitState(d, long_task, "running"));

  RawClient silent(d.socket());  // connects and never sends
  RawClient half(d.socket());    // sends half a frame and stops
  REQUIRE(half.SendBytes(LengthPrefix(1000) + "{\"proto\":1"));
  RawClient waiter(d.socket());  // waits on a long task and never reads
  REQUIRE(waiter.SendFrame(R"({"proto":1,"type":"wait","ids":[)" + long_task + "]}"));

  // Floods pings without reading a single answer, reconnecting whenever the daemon drops it.
  std::atomic<bool> stop{false};
  std::atomic<long> sent{0};
  std::atomic<bool> flood_failed{false};
  std::thread flooder([&] {
    std::string burst;
    for (int i = 0; i < 1000; ++i)
      burst += LengthPrefix(static_cast<uint32_t>(strlen(kPingFrame))) + kPingFrame;
    try {
      while (!stop) {
        RawClient flood(d.socket());
        size_t off = 0;
        while (!stop) {
          const ssize_t n = flood.TrySend(std::string_view(burst).substr(off));
          if (n < 0) break;  // dropped by the daemon: connect again
          if (n == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            continue;
          }
          sent += n;
          off = (off + static_cast<size_t>(n)) % burst.size();
        }
      }
    } catch (...) {  // a failed REQUIRE in this thread must not terminate the test binary
      flood_failed = true;
    }
  });
  // Every call must complete (each has its own generous timeout in the harness).
  bool all_ok = true;
  for (int i = 0; i < 3 && all_ok; ++i) {
    CHECK(Tq(d, {"ping"}).exit_code == 0);
    const std::string id = Submit(d, {"--", "true"});
    const RunResult wait = Tq(d, {"wait", id});
    CHECK(wait.exit_code == 0);
    CHECK(Tq(d, {"status", id}).exit_code == 0);
    all_ok = wait.exit_code == 0;
  }
  stop = true;
  flooder.join();
  CHECK(!flood_failed);
  CHECK(sent > 0);
  CHECK(Tq(d, {"cancel", long_task}).exit_code == 0);
  CHECK(Tq(d, {"ping"}).exit_code == 0);
  CHECK(d.Alive());
}
