// Cron jobs as `tq jobs --json` shows them: every field of a job, its run-time record, load
// errors and a reload's report; bytes that are not UTF-8 travel as the wire carries them.
#include "core/proto/job_json.h"

#include <doctest/doctest.h>

#include "core/cron/cron_expr.h"
#include "core/proto/task_json.h"
#include "core/proto/wire_bytes.h"

namespace tq {
namespace {

using nlohmann::json;

JobInfo FullJob() {
  JobInfo info;
  JobDef& d = info.def;
  d.name = "nightly-report";
  d.file = "/etc/tq/jobs.d/reports.toml";
  d.line = 4;
  d.schedule = *ParseCron("15 2 * * *");
  d.timezone = "Europe/Berlin";
  d.command = "/usr/bin/php report.php";
  d.user = "www-data";
  d.cwd = "/srv/\xe9t\xe9";
  d.env = {"REPORT_DIR=/srv/reports"};
  d.stdin_data = std::string("in\0put", 6);
  d.queue = "cron";
  d.priority = 2;
  d.timeout_ms = 7200000;
  d.retry.retries = 3;
  d.retry.backoff = BackoffKind::kExponential;
  d.overlap = Overlap::kQueue;
  d.misfire = Misfire::kRunAll;
  d.max_catch_up = 4;
  d.random_delay_ms = 30000;
  info.disabled = true;
  info.next = 1700000000000;
  info.last_fired = 1699990000000;
  info.last_task = 42;
  info.last_state = TaskState::kFailed;
  info.last_reason = TaskReason::kExit;
  info.last_exit_code = 1;
  return info;
}

TEST_CASE("a job shows every field and its run-time record") {
  const json j = JobInfoToJson(FullJob());
  CHECK(j["name"] == "nightly-report");
  CHECK(j["file"] == "/etc/tq/jobs.d/reports.toml");
  CHECK(j["line"] == 4);
  CHECK(j["schedule"] == "15 2 * * *");
  CHECK(j["timezone"] == "Europe/Berlin");
  CHECK(j["dst"] == "cron");
  CHECK(j["command"] == "/usr/bin/php report.php");
  CHECK(j["shell"] == "/bin/sh");
  CHECK(j["argv"] == json::array());
  CHECK(j["user"] == "www-data");
  CHECK(j["cwd"].contains("b64"));  // not UTF-8
  CHECK(j["env"] == json{"REPORT_DIR=/srv/reports"});
  CHECK(j["stdin"] == std::string("in\0put", 6));
  CHECK(j["queue"] == "cron");
  CHECK(j["priority"] == 2);
  CHECK(j["timeout_ms"] == 7200000);
  CHECK(j["pending_ttl_ms"].is_null());
  CHECK(j["retry"]["retries"] == 3);
  CHECK(j["retry"]["backoff"] == "exponential");
  CHECK(j["retry"]["jitter"].is_null());
  CHECK(j["overlap"] == "queue");
  CHECK(j["misfire"] == "run_all");
  CHECK(j["max_catch_up"] == 4);
  CHECK(j["max_lateness_ms"].is_null());
  CHECK(j["random_delay_ms"] == 30000);
  CHECK(j["enabled"] == true);
  CHECK(j["disabled"] == true);
  CHECK(j["from_last_good"] == false);
  CHECK(j["next"] == "2023-11-14T22:13:20Z");
  CHECK(j["last_fired"] == "2023-11-14T19:26:40Z");
  CHECK(j["last_task"] == 42);
  CHECK(j["last_state"] == "failed");
  CHECK(j["last_reason"] == "exit");
  CHECK(j["last_exit_code"] == 1);
}

TEST_CASE("a job that never ran shows nulls for its record") {
  JobInfo info;
  info.def.name = "x";
  info.def.argv = {"echo", "\xff"};
  const json j = JobInfoToJson(info);
  CHECK(j["command"].is_null());
  CHECK(j["argv"][1].contains("b64"));
  for (const char* key : {"timezone", "user", "cwd", "stdin", "next", "last_fired", "last_task",
                          "last_state", "last_reason", "last_exit_code"}) {
    CAPTURE(key);
    CHECK(j[key].is_null());
  }
}

TEST_CASE("a job's summary is what tq jobs lists, in JSON however odd its strings") {
  const JobInfo full = FullJob();
  const json summary = json::parse(JobSummaryText(full));
  CHECK(summary == json{{"name", "nightly-report"},
                        {"file", "/etc/tq/jobs.d/reports.toml"},
                        {"line", 4},
                        {"schedule", "15 2 * * *"},
                        {"timezone", "Europe/Berlin"},
                        {"enabled", true},
                        {"disabled", true},
                        {"from_last_good", false},
                        {"next", "2023-11-14T22:13:20Z"},
                        {"last_fired", "2023-11-14T19:26:40Z"},
                        {"last_task", 42},
                        {"last_state", "failed"},
                        {"last_reason", "exit"},
                        {"last_exit_code", 1},
                        {"overdue", false}});

  struct Case {
    const char* what;
    std::string file;
    json shown;
  };
  const Case cases[] = {
      {"a quote and a backslash", "/j/a\"b\\c.toml", "/j/a\"b\\c.toml"},
      {"a control character", "/j/a\tb.toml", "/j/a\tb.toml"},
      {"UTF-8", "/j/\xc3\xa9t\xc3\xa9.toml", "/j/\xc3\xa9t\xc3\xa9.toml"},
      {"DEL", "/j/\x7f.toml", "/j/\x7f.toml"},
      {"not UTF-8", "/j/\xff.toml", BytesToJson("/j/\xff.toml")},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    JobInfo info;
    info.def.name = "x";
    info.def.file = c.file;
    const json j = json::parse(JobSummaryText(info));
    CHECK(j["file"] == c.shown);
    for (const char* key : {"timezone", "next", "last_fired", "last_task", "last_state",
                            "last_reason", "last_exit_code"}) {
      CAPTURE(key);
      CHECK(j[key].is_null());
    }
    CHECK(j.size() == 15);
  }
}

TEST_CASE("load errors and a reload report") {
  ReloadReport r;
  r.files = 3;
  r.jobs = 10;
  r.added = 2;
  r.removed = 1;
  r.changed = 4;
  r.errors = {{"/j/a.toml", 7, "/j/a.toml:7: frob: unknown key", true},
              {"/j/\xff.toml", 0, "/j/\xff.toml: unreadable", false}};
  const json j = ReloadReportToJson(r);
  CHECK(j["files"] == 3);
  CHECK(j["jobs"] == 10);
  CHECK(j["added"] == 2);
  CHECK(j["removed"] == 1);
  CHECK(j["changed"] == 4);
  REQUIRE(j["errors"].size() == 2);
  CHECK(j["errors"][0] == json{{"file", "/j/a.toml"},
                               {"line", 7},
                               {"message", "/j/a.toml:7: frob: unknown key"},
                               {"kept", true}});
  CHECK(j["errors"][1]["kept"] == false);
  CHECK(j["errors"][1]["line"].is_null());
  CHECK(j["errors"][1]["file"].contains("b64"));
  CHECK(j["errors"][1]["message"].contains("b64"));
  CHECK(j.dump().size() > 0);  // dumps without throwing: nothing invalid reaches the encoder
}

TEST_CASE("a task shows the job it is a run of, or null") {
  Task t;
  CHECK(TaskToJson(t)["job"].is_null());
  t.spec.job = "nightly-report";
  CHECK(TaskToJson(t)["job"] == "nightly-report");
}

}  // namespace
}  // namespace tq
