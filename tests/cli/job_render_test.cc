// How `tq jobs` renders jobs for people: relative times, the last result, the table and the
// load errors.
#include "cli/job_render.h"

#include <doctest/doctest.h>

#include "core/proto/job_json.h"

namespace tq {
namespace {

using nlohmann::json;

TEST_CASE("relative times") {
  const WallMs now = 1700000000000;
  struct Case {
    int64_t delta_ms;
    const char* text;
  };
  const Case cases[] = {
      {0, "now"},
      {999, "now"},
      {1000, "in 1s"},
      {59999, "in 59s"},
      {60000, "in 1m"},
      {3599999, "in 59m"},
      {3600000, "in 1h"},
      {3659999, "in 1h"},
      {6060000, "in 1h41m"},
      {86399999, "in 23h59m"},
      {86400000, "in 1d"},
      {90000000, "in 1d1h"},
      {-1000, "1s ago"},
      {-90000, "1m ago"},
      {-7200000, "2h ago"},
      {-999, "now"},
      {-864000000, "10d ago"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.delta_ms);
    CHECK(RelativeTime(now + c.delta_ms, now) == c.text);
  }
}

TEST_CASE("the last result of a job") {
  struct Case {
    json job;
    const char* text;
  };
  const Case cases[] = {
      {json::object(), "-"},
      {{{"last_state", nullptr}}, "-"},
      {{{"last_state", "succeeded"}, {"last_reason", "exit"}, {"last_exit_code", 0}}, "succeeded"},
      {{{"last_state", "failed"}, {"last_reason", "exit"}, {"last_exit_code", 1}},
       "failed (exit 1)"},
      {{{"last_state", "failed"}, {"last_reason", "timeout"}, {"last_exit_code", nullptr}},
       "failed (timeout)"},
      {{{"last_state", "failed"}, {"last_reason", "signal"}}, "failed (signal)"},
      {{{"last_state", "running"}}, "running"},
      {{{"last_state", "pending"}}, "pending"},
      {{{"last_state", "cancelled"}, {"last_reason", "cancelled"}}, "cancelled (cancelled)"},
      {{{"last_state", 7}}, "-"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.job.dump());
    CHECK(LastResult(c.job) == c.text);
  }
}

TEST_CASE("the jobs table marks disabled jobs and jobs from a broken file") {
  JobRow a;
  a.name = "a";
  a.schedule = "@daily";
  a.disabled = true;
  JobRow b;
  b.name = "b";
  b.schedule = "* * * * *";
  b.timezone = "UTC";
  b.from_last_good = true;
  b.next = "2023-11-14T22:14:20Z";
  b.last_state = "succeeded";
  JobRow c;
  c.name = "c";
  c.schedule = "@hourly";
  c.enabled = false;
  c.last_state = "failed";
  c.last_reason = "exit";
  c.last_exit_code = 3;
  JobRow d;
  d.name = "d";
  d.schedule = "@daily";
  d.overdue = true;
  d.last_state = "failed";
  d.last_reason = "timeout";
  JobRow e;
  e.name = "e";
  e.schedule = "@reboot";
  const std::vector<JobRow> jobs = {a, b, c, d, e};
  const auto rows = JobRows(jobs, 1700000000000);
  REQUIRE(rows.size() == 6);
  CHECK(rows[0] == std::vector<std::string>{"NAME", "SCHEDULE", "ZONE", "NEXT", "LAST", "RESULT"});
  CHECK(rows[1][0] == "a");
  CHECK(rows[1][2] == "local");
  CHECK(rows[1][3] == "disabled");
  CHECK(rows[1][5] == "-");
  CHECK(rows[2][0] == "b*");
  CHECK(rows[2][3].find("(in 1m)") != std::string::npos);
  CHECK(rows[2][5] == "succeeded");
  CHECK(rows[3][3] == "disabled");
  CHECK(rows[3][5] == "failed (exit 3)");
  CHECK(rows[4][5] == "overdue, last failed (timeout)");
  CHECK(rows[5][3] == "at the next boot");  // an @reboot job has no next time
}

TEST_CASE("jobs show lists every field even of a job with odd values") {
  const json job = {{"name", "x"},     {"file", {{"b64", "/w=="}}}, {"line", 3},
                    {"argv", {"a b"}}, {"command", nullptr},        {"stdin", "in"},
                    {"retry", 5},      {"misfire", "run_all"},      {"max_catch_up", 2}};
  const auto rows = JobShowRows(job, 0);
  auto value = [&](const std::string& key) {
    for (const auto& r : rows)
      if (r[0] == key) return r[1];
    return std::string("(missing)");
  };
  CHECK(value("argv") == "'a b'");
  CHECK(value("file") == "$'\\xff':3");
  CHECK(value("stdin") == "in");
  CHECK(value("retry") == "-");
  CHECK(value("misfire") == "run_all, at most 2");
  CHECK(value("cwd") == "(home)");
  CHECK(value("timeout") == "none");
}

TEST_CASE("jobs show lists a job's stages, one a line, with their own settings") {
  JobInfo info;
  JobDef& d = info.def;
  d.name = "nightly-backup";
  d.shell = "/bin/bash";
  d.stages.resize(3);
  d.stages[0].name = "dump";
  d.stages[0].shell = "pg_dump db > \"$TQ_CONTEXT/db.sql\"";
  d.stages[0].timeout_ms = 3600000;
  d.stages[1].name = "upload";
  d.stages[1].argv = {"rclone", "copy", "a b"};
  d.stages[1].retry.retries = 5;
  d.stages[1].retry.backoff = BackoffKind::kFixed;
  d.stages[2].name = "prune";
  d.stages[2].shell = "prune";
  const json j = JobInfoToJson(info);
  REQUIRE(j["stages"].size() == 3);
  CHECK(j["stages"][0]["command"] == "pg_dump db > \"$TQ_CONTEXT/db.sql\"");
  CHECK(j["stages"][0]["timeout_ms"] == 3600000);
  CHECK(j["stages"][1]["command"].is_null());
  CHECK(j["stages"][1]["argv"] == json{"rclone", "copy", "a b"});
  CHECK(j["stages"][1]["retry"]["retries"] == 5);
  CHECK(j["stages"][2]["retry"]["retries"].is_null());

  std::vector<std::vector<std::string>> shown;
  for (const auto& row : JobShowRows(j, 0))
    if (row[0] == "shell" || row[0].rfind("stage", 0) == 0 || row[0] == "argv" ||
        row[0] == "command")
      shown.push_back(row);
  CHECK(shown == std::vector<std::vector<std::string>>{
                     {"shell", "/bin/bash (runs the stages' commands)"},
                     {"stage 1", "dump: 'pg_dump db > \"$TQ_CONTEXT/db.sql\"' (timeout 1h)"},
                     {"stage 2", "upload: rclone copy 'a b' (5 retries, fixed backoff)"},
                     {"stage 3", "prune: prune"},
                 });
  CHECK(JobInfoToJson(JobInfo{})["stages"] == json::array());
}

TEST_CASE("load error lines say whether the last good jobs stay, and how many were left out") {
  const json answer = {
      {"errors",
       {{{"file", "/j/a.toml"}, {"line", 2}, {"message", "/j/a.toml:2: x"}, {"kept", true}},
        {{"file", "/j/b.toml"}, {"line", 3}, {"message", "/j/b.toml:3: y"}, {"kept", false}}}},
      {"errors_left_out", 3}};
  CHECK(LoadErrorLines(answer) ==
        std::vector<std::string>{"/j/a.toml:2: x (its last good jobs stay in force)",
                                 "/j/b.toml:3: y (none of its jobs are in force)",
                                 "(3 more files failed to load)"});
  CHECK(LoadErrorLines(json::object()).empty());
}

}  // namespace
}  // namespace tq
