// Output the state disk cannot hold is never cut silently (issue 48): a task that writes more
// than the disk holds and exits 0 still succeeds, and `tq logs` ends with a marker saying where
// and why its output stops, `tq status` and its JSON name the cut, and tqd's log has a
// timestamped line naming the task. Mounting the small disk needs root; elsewhere it is skipped.
#include <doctest/doctest.h>
#include <unistd.h>

#include <regex>
#include <string>

#include "support/skip.h"
#include "support/test_daemon.h"
#include "support/tmpfs.h"

using namespace tqtest;

namespace {
// The line of tqd's log that holds `text`; "" when none does.
std::string LogLineWith(const std::string& log, const std::string& text) {
  const size_t at = log.find(text);
  if (at == std::string::npos) return "";
  const size_t begin = log.rfind('\n', at);
  const size_t end = log.find('\n', at);
  return log.substr(begin == std::string::npos ? 0 : begin + 1,
                    end == std::string::npos ? std::string::npos : end - begin - 1);
}
}  // namespace

TEST_CASE("output that fills the state disk is cut with a marker, named, and logged") {
  if (geteuid() != 0) TQ_SKIP("needs root to mount a small tmpfs");
  TestDaemon d("output_max = \"64MiB\"\n");  // the disk, not the limit, cuts it
  TQ_LOG_ON_FAILURE(d);
  d.Stop();
  Tmpfs fs(d.state_dir(), "8m");
  d.Start();
  d.WaitReady();
  // Room the store gets back once the task has filled the disk, so its end can be stored.
  const std::string slack = d.state_dir() + "/slack";
  WriteFile(slack, std::string(1 << 20, 's'));

  const std::string id = Submit(d, {"--shell", "head -c 16M /dev/zero | tr '\\0' x; exit 0"});
  const std::string disk_full = "No space left on device";
  REQUIRE(WaitFor([&] { return d.Log().find(disk_full) != std::string::npos; }));
  const std::string line = LogLineWith(d.Log(), disk_full);
  CHECK_MESSAGE(std::regex_search(line, std::regex(R"(^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} )")),
                line);
  CHECK_MESSAGE(line.find("task " + id + " ") != std::string::npos, line);
  REQUIRE(unlink(slack.c_str()) == 0);

  // It ends as its command's exit says.
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(TaskState(d, id) == "succeeded");

  // Its attempt records where and why.
  const nlohmann::json attempt = TaskJson(d, id)["attempt_log"][0];
  REQUIRE_MESSAGE(attempt["output_cut"].is_array(), attempt.dump());
  REQUIRE(attempt["output_cut"].size() == 1);
  const nlohmann::json cut = attempt["output_cut"][0];
  CHECK(cut["stream"] == "stdout");
  CHECK(cut["reason"] == disk_full);
  const long long at = cut["at"].get<long long>();
  CHECK(at > 0);
  CHECK(at < 8 << 20);

  // `tq logs` ends with the marker, right after the bytes kept.
  const std::string marker =
      "\n[tq: output cut here at " + std::to_string(at) + " bytes: " + disk_full + "]\n";
  const RunResult logs = Tq(d, {"logs", id});
  CHECK(logs.exit_code == 0);
  REQUIRE(logs.out.size() == static_cast<size_t>(at) + marker.size());
  CHECK(logs.out.substr(static_cast<size_t>(at)) == marker);
  CHECK(logs.out.find_first_not_of('x') == static_cast<size_t>(at));
  CHECK(Tq(d, {"logs", id, "--stderr"}).out.empty());
  const std::string merged_marker =
      "\n[tq: stdout cut at " + std::to_string(at) + " bytes: " + disk_full + "]\n";
  const RunResult merged = Tq(d, {"logs", "--merged", id});
  REQUIRE(merged.out.size() == static_cast<size_t>(at) + merged_marker.size());
  CHECK(merged.out.substr(static_cast<size_t>(at)) == merged_marker);

  // `tq status` names it.
  const RunResult status = Tq(d, {"status", id});
  CHECK_MESSAGE(status.out.find("output: stdout cut at ") != std::string::npos, status.out);
  CHECK_MESSAGE(status.out.find("MiB: " + disk_full) != std::string::npos, status.out);
}
