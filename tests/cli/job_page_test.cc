// Reading a `jobs` answer for the table: each job becomes a row, everything else stays JSON, and
// what the daemon encodes reads back as the row of the job it came from.
#include "cli/job_page.h"

#include <doctest/doctest.h>

#include "core/proto/job_json.h"
#include "core/proto/response.h"

namespace tq {
namespace {

using nlohmann::json;

TEST_CASE("a jobs answer reads into rows and the rest of the answer") {
  JobInfo ran;
  ran.def.name = "nightly";
  ran.def.schedule.text = "15 2 * * *";
  ran.def.timezone = "Europe/Berlin";
  ran.def.file = "/etc/tq/jobs.d/\xff.toml";  // sent as {"b64": ...}: skipped, not a row
  ran.def.env = {"A=1"};
  ran.next = 1'800'000'000'000;
  ran.last_fired = 1'799'990'000'000;
  ran.last_task = 42;
  ran.last_state = TaskState::kFailed;
  ran.last_reason = TaskReason::kExit;
  ran.last_exit_code = 3;
  ran.from_last_good = true;
  JobInfo idle;
  idle.def.name = "idle";
  idle.def.schedule.text = "@daily";
  idle.def.enabled = false;
  idle.disabled = true;

  const std::string text = OkResponseText(
      {{"errors", json::array({{{"file", "f"}, {"line", 2}, {"message", "f:2: bad"}}})},
       {"errors_left_out", 0},
       {"more", true}},
      "jobs", {JobSummaryText(ran), JobSummaryText(idle)});
  auto page = ReadJobPage(text);
  REQUIRE_MESSAGE(page.ok(), page.status().message());
  REQUIRE(page->jobs.size() == 2);
  const JobRow& a = page->jobs[0];
  CHECK(a.name == "nightly");
  CHECK(a.schedule == "15 2 * * *");
  CHECK(a.timezone == "Europe/Berlin");
  CHECK(a.next == "2027-01-15T08:00:00Z");
  CHECK(a.last_fired == "2027-01-15T05:13:20Z");
  CHECK(a.last_state == "failed");
  CHECK(a.last_reason == "exit");
  CHECK(a.last_exit_code == 3);
  CHECK(a.from_last_good);
  CHECK(a.enabled);
  CHECK_FALSE(a.disabled);
  const JobRow& b = page->jobs[1];
  CHECK(b.name == "idle");
  CHECK(b.timezone.empty());
  CHECK(b.next.empty());
  CHECK(b.last_state.empty());
  CHECK_FALSE(b.last_exit_code);
  CHECK_FALSE(b.enabled);
  CHECK(b.disabled);

  CHECK(page->rest["ok"] == true);
  CHECK(page->rest["more"] == true);
  CHECK(page->rest["errors"][0]["message"] == "f:2: bad");
  CHECK_FALSE(page->rest.contains("jobs"));
}

TEST_CASE("a jobs answer of any shape reads without a crash") {
  struct Case {
    const char* text;
    bool ok;
    size_t rows;
  };
  const Case cases[] = {
      {R"({"ok":true,"jobs":[]})", true, 0},
      {R"({"ok":false,"error":{"code":"not-found","message":"no job"}})", true, 0},
      {R"({"ok":true,"jobs":[1,"x",[{"name":"n"}],{"name":{"deep":[{}]},"schedule":"@daily"}]})",
       true, 1},
      {R"({"ok":true,"jobs":{"name":"x"}})", true, 0},
      {R"({"ok":true,"jobs":[{"name":"x","last_exit_code":18446744073709551615}]})", true, 1},
      {R"({"ok":true,"jobs":[{"name":"x",)", false, 0},
      {R"([1,2])", false, 0},
      {"", false, 0},
      {"\xff", false, 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    auto page = ReadJobPage(c.text);
    CHECK(page.ok() == c.ok);
    if (page.ok()) CHECK(page->jobs.size() == c.rows);
  }
  auto error = ReadJobPage(cases[1].text);
  REQUIRE(error.ok());
  CHECK(ResponseStatus(error->rest).code() == ErrorCode::kNotFound);
}

}  // namespace
}  // namespace tq
