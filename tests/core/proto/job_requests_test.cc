// The cron job requests on the wire (jobs, job_run, job_enable, reload, crontab): round trips,
// and every malformed body refused naming its field.
#include <doctest/doctest.h>

#include "core/proto/protocol.h"

namespace tq {
namespace {

TEST_CASE("the job requests round-trip") {
  auto jobs = DecodeRequest(EncodeRequest(JobsRequest{"nightly-report", "a.b_c"}));
  REQUIRE(jobs.ok());
  CHECK(std::get<JobsRequest>(*jobs).name == "nightly-report");
  CHECK(std::get<JobsRequest>(*jobs).after == "a.b_c");
  auto all = DecodeRequest(EncodeRequest(JobsRequest{}));
  REQUIRE(all.ok());
  CHECK(std::get<JobsRequest>(*all).name.empty());

  auto run = DecodeRequest(EncodeRequest(JobRunRequest{"backup", true}));
  REQUIRE(run.ok());
  CHECK(std::get<JobRunRequest>(*run).name == "backup");
  CHECK(std::get<JobRunRequest>(*run).force);

  auto enable = DecodeRequest(EncodeRequest(JobEnableRequest{"backup", false}));
  REQUIRE(enable.ok());
  CHECK(std::get<JobEnableRequest>(*enable).name == "backup");
  CHECK_FALSE(std::get<JobEnableRequest>(*enable).enabled);

  auto reload = DecodeRequest(EncodeRequest(ReloadRequest{}));
  REQUIRE(reload.ok());
  CHECK(std::holds_alternative<ReloadRequest>(*reload));
  CHECK(RequestType(*reload) == std::string("reload"));

  auto own = DecodeRequest(EncodeRequest(JobRunRequest{"alice/backup", false}));
  REQUIRE(own.ok());
  CHECK(std::get<JobRunRequest>(*own).name == "alice/backup");

  using Action = CrontabRequest::Action;
  for (const auto& want :
       {CrontabRequest{Action::kInstall, "alice", "[[job]]\n", "mine.toml"},
        CrontabRequest{Action::kInstall, "", "[[job]]\n", ""},
        CrontabRequest{Action::kCat, "", "", ""}, CrontabRequest{Action::kRemove, "bob", "", ""}}) {
    auto got = DecodeRequest(EncodeRequest(want));
    REQUIRE(got.ok());
    const auto& c = std::get<CrontabRequest>(*got);
    CHECK(c.action == want.action);
    CHECK(c.user == want.user);
    CHECK(c.text == want.text);
    CHECK(c.name == want.name);
  }
  // The name goes back to the user in messages: text, bounded, with no control characters.
  const std::string install = R"({"proto":1,"type":"crontab","action":"install","text":"",)";
  for (const std::string& name : {std::string(R"(a\u001b[2Jb)"), std::string(4097, 'x')}) {
    auto got = DecodeRequest(install + R"("name":")" + name + "\"}");
    CAPTURE(name.size());
    REQUIRE_FALSE(got.ok());
    CHECK(got.status().field() == "name");
  }
  auto cat = DecodeRequest(R"({"proto":1,"type":"crontab","action":"cat","name":"x"})");
  REQUIRE_FALSE(cat.ok());
  CHECK(cat.status().field() == "name");
}

TEST_CASE("malformed job requests are refused naming the field") {
  struct Case {
    std::string body;
    std::string field;
    std::string in_message;
  };
  const std::string long_name(65, 'a');
  const Case cases[] = {
      {R"("type":"jobs","name":"a b")", "name", "not a job name"},
      {R"("type":"jobs","name":7)", "name", "a job name"},
      {R"("type":"jobs","after":"x/y/z")", "after", "not a job name"},
      {R"("type":"jobs","name":"-x/y")", "name", "not a job name"},
      {R"("type":"crontab","action":"edit")", "action", "\"edit\" is not install, cat or remove"},
      {R"("type":"crontab")", "action", "\"\" is not install, cat or remove"},
      {R"("type":"crontab","action":"cat","user":"a b")", "user", "\"a b\" is not a user name"},
      {R"("type":"crontab","action":"cat","text":"x")", "text", "only install takes a file"},
      {R"("type":"crontab","action":"install","text":1)", "text", "expected a string"},
      {R"("type":"jobs","name":")" + long_name + "\"", "name", long_name},
      {R"("type":"job_run")", "name", "\"\""},
      {R"("type":"job_run","name":"")", "name", "not a job name"},
      {R"("type":"job_run","name":"\u00e9")", "name", "not a job name"},
      {R"("type":"job_run","name":"x","force":"yes")", "force", "a boolean"},
      {R"("type":"job_run","name":["x"])", "name", "a job name"},
      {R"("type":"job_enable","name":"x","enabled":1)", "enabled", "a boolean"},
      {R"("type":"job_enable","name":"..\/x")", "name", "not a job name"},
  };
  for (const Case& c : cases) {
    const std::string payload = "{\"proto\":1," + c.body + "}";
    CAPTURE(payload);
    auto r = DecodeRequest(payload);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kInvalid);
    CHECK(r.status().field() == c.field);
    CHECK_MESSAGE(r.status().message().find(c.in_message) != std::string::npos,
                  r.status().message());
  }
}

}  // namespace
}  // namespace tq
