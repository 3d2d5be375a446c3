// `tq logs` over several tasks and merged (issue 26): ids or filters print each task's output
// under a header line, resolved by the daemon in one request and paged by it; --merged
// interleaves stdout and stderr in the order written, also while following.
#include <doctest/doctest.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A task that writes "o1" to stdout, "e1" to stderr and "o2" to stdout, each write after the
// gate of the one before exists, so the order the shim sees is certain.
std::vector<std::string> Alternating(const std::string& gate) {
  const std::string wait_for = "while [ ! -e " + Quoted(gate) + "N ]; do sleep 0.02; done; ";
  std::string script = "echo o1; ";
  script += std::string(wait_for).replace(wait_for.find("N ]"), 1, "1");
  script += "echo e1 >&2; ";
  script += std::string(wait_for).replace(wait_for.find("N ]"), 1, "2");
  script += "echo o2";
  return {"--", "sh", "-c", script};
}

// Opens the gates of an Alternating task one by one, each once the write before it is filed.
void StepThrough(const TestDaemon& d, const std::string& id, const std::string& gate) {
  REQUIRE(WaitFor([&] { return Tq(d, {"logs", id}).out == "o1\n"; }));
  WriteFile(gate + "1", "");
  REQUIRE(WaitFor([&] { return Tq(d, {"logs", id, "--stderr"}).out == "e1\n"; }));
  WriteFile(gate + "2", "");
}

}  // namespace

TEST_CASE("tq logs --label prints each task's output under a header, oldest first") {
  TestDaemon d("max_running = 4\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string first = Submit(d, {"--label", "batch", "--", "echo", "one"});
  const std::string second = Submit(d, {"--label", "batch", "--", "sh", "-c", "echo two; exit 3"});
  const std::string other = Submit(d, {"--label", "other", "--", "echo", "other"});
  const std::string later = Submit(d, {"--label", "batch", "--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"wait", first, second, other}).exit_code == 3);

  const RunResult r = Tq(d, {"logs", "--label", "batch"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == "==> task " + first + " (succeeded, attempt 1): echo one <==\none\n\n" +
                     "==> task " + second + " (failed, attempt 1): sh -c 'echo two; exit 3' <==\n" +
                     "two\n\n==> task " + later + " (pending, no attempt yet): true <==\n");

  const RunResult failed = Tq(d, {"logs", "--label", "batch", "--state", "failed"});
  CHECK(failed.out ==
        "==> task " + second + " (failed, attempt 1): sh -c 'echo two; exit 3' <==\ntwo\n");

  SUBCASE("ids: a task that is not there is said on stderr, the others still print") {
    const RunResult ids = Tq(d, {"logs", other, "999999", first});
    CHECK(ids.exit_code == 4);
    CHECK(ids.err == "tq: task 999999 not found\n");
    CHECK(ids.out == "==> task " + other + " (succeeded, attempt 1): echo other <==\nother\n\n" +
                         "==> task " + first + " (succeeded, attempt 1): echo one <==\none\n");
  }
  SUBCASE("--json: one line per chunk, no headers") {
    const auto lines = JsonLines(Tq(d, {"--json", "logs", first, second}).out);
    REQUIRE(lines.size() == 2);
    CHECK(std::to_string(lines[1]["id"].get<long long>()) == second);
    CHECK(lines[1]["data"] == "two\n");
    CHECK(lines[1]["stream"] == "stdout");
  }
  SUBCASE("nothing matches") {
    const RunResult none = Tq(d, {"logs", "--label", "no-such"});
    CHECK(none.exit_code == 0);
    CHECK(none.out.empty());
    CHECK(none.err == "tq: no task matches\n");
  }
  SUBCASE("--follow and --attempt go with one task only") {
    const RunResult follow = Tq(d, {"logs", "-f", "--label", "batch"});
    CHECK(follow.exit_code == 2);
    CHECK(follow.err.find("--follow: goes with one task id") != std::string::npos);
    CHECK(Tq(d, {"logs", "--attempt", "1", first, second}).exit_code == 2);
  }
  CHECK(Tq(d, {"cancel", later}).exit_code == 0);
}

TEST_CASE("tq logs over several tasks pages large outputs whole, byte for byte") {
  TestDaemon d("max_running = 2\n");
  TQ_LOG_ON_FAILURE(d);
  // 1.3 MB and 0.6 MB: several responses each, one of them ending inside a task.
  const std::string big = Submit(d, {"--label", "big", "--", "seq", "1", "200000"});
  const std::string small = Submit(d, {"--label", "big", "--", "seq", "5", "100000"});
  REQUIRE(Tq(d, {"wait", big, small}).exit_code == 0);
  std::string want = "==> task " + big + " (succeeded, attempt 1): seq 1 200000 <==\n";
  for (int i = 1; i <= 200000; ++i) want += std::to_string(i) + "\n";
  want += "\n==> task " + small + " (succeeded, attempt 1): seq 5 100000 <==\n";
  for (int i = 5; i <= 100000; ++i) want += std::to_string(i) + "\n";
  const RunResult r = Tq(d, {"logs", "--label", "big"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.size() == want.size());
  CHECK(r.out == want);
}

TEST_CASE("tq logs --merged interleaves stdout and stderr in the order written") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";

  SUBCASE("after the task ended") {
    const std::string id = Submit(d, Alternating(gate));
    StepThrough(d, id, gate);
    REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
    CHECK(Tq(d, {"logs", "--merged", id}).out == "o1\ne1\no2\n");
    CHECK(Tq(d, {"logs", id}).out == "o1\no2\n");
    const auto lines = JsonLines(Tq(d, {"--json", "logs", "--merged", id}).out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["stream"] == "merged");
    CHECK(lines[0]["data"] == "o1\ne1\no2\n");
    const RunResult both = Tq(d, {"logs", "--merged", "--stderr", id});
    CHECK(both.exit_code == 2);
    const RunResult twice = Tq(d, {"logs", "--merged", id, id});
    CHECK(twice.out.find("): sh -c ") != std::string::npos);
    CHECK(twice.out.substr(twice.out.find(" <==\n")) == " <==\no1\ne1\no2\n");  // once
  }
  SUBCASE("followed while it runs") {
    const std::string id = Submit(d, Alternating(gate));
    auto follow = TqBackground(d, {"logs", "-f", "--merged", id});
    StepThrough(d, id, gate);
    const RunResult r = follow->Finish();
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.out == "o1\ne1\no2\n");
  }
}

TEST_CASE("tq logs of several tasks heads a task with stages with its stage and that command") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string plain = Submit(d, {"--label", "s", "--", "echo", "plain"});
  const std::string staged = Submit(d, {"--label", "s", "--stage", "dump", "--", "echo", "one",
                                        "--stage", "gz", "--", "sh", "-c", "echo two; exit 4"});
  CHECK(Tq(d, {"wait", plain, staged}).exit_code == 4);
  const RunResult r = Tq(d, {"logs", plain, staged});
  CHECK_MESSAGE(r.out.find("==> task " + staged + " (failed, attempt 2, stage gz): sh -c 'echo " +
                           "two; exit 4' <==\ntwo\n") != std::string::npos,
                r.out);
  CHECK(r.out.find("==> task " + plain + " (succeeded, attempt 1): echo plain <==\n") !=
        std::string::npos);
}
