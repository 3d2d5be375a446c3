// The string checks a submit passes in tq and again in tqd (issue 9): exec's per-string limit,
// a program name, and text fields in UTF-8; and the list of submit fields.
#include <doctest/doctest.h>

#include <algorithm>

#include "core/model/limits.h"
#include "core/proto/protocol.h"
#include "core/proto/submit_spec.h"

namespace tq {
namespace {

using nlohmann::json;

SubmitRequest Echo(std::vector<std::string> argv = {"echo", "hi"}) {
  SubmitRequest r;
  r.spec.argv = std::move(argv);
  r.spec.queue = "default";
  return r;
}

TEST_CASE("a string execve would refuse is refused, in tq and in tqd") {
  const std::string at_limit(kMaxArgStrlen - 1, 'a');  // with its NUL: exactly the limit
  const std::string over(kMaxArgStrlen, 'a');
  CHECK(CheckSubmit(Echo({"echo", at_limit})).ok());

  Status st = CheckSubmit(Echo({"echo", over}));
  CHECK(st.code() == ErrorCode::kLimit);
  CHECK(st.field() == "argv");
  CHECK(st.message().find("argument 2") != std::string::npos);
  CHECK(st.message().find("MAX_ARG_STRLEN") != std::string::npos);
  // tqd decodes the same request and refuses it the same way.
  auto decoded = DecodeRequest(EncodeRequest(Echo({"echo", over})));
  REQUIRE(!decoded.ok());
  CHECK(decoded.status().field() == "argv");

  SubmitRequest shell = Echo({});
  shell.spec.shell = over;
  CHECK(CheckSubmit(shell).field() == "shell");

  SubmitRequest env = Echo();
  env.spec.env = {"SMALL=1", "SECRET=" + over};
  st = CheckSubmit(env);
  CHECK(st.field() == "env");
  CHECK(st.message().find("\"SECRET\"") != std::string::npos);
  CHECK(st.message().find("aaaa") == std::string::npos);  // never the value
}

TEST_CASE("an empty program name is refused, empty later arguments are kept") {
  Status st = CheckSubmit(Echo({""}));
  CHECK(st.code() == ErrorCode::kInvalid);
  CHECK(st.field() == "argv");
  CHECK(st.message().find("program name") != std::string::npos);
  CHECK(CheckSubmit(Echo({"echo", ""})).ok());
}

TEST_CASE("shards: 1 to 1000, without a key, and N copies within what a batch may bring") {
  SubmitRequest r = Echo({"true"});
  for (int n : {1, 1000}) {
    r.shards = n;
    CHECK(CheckSubmit(r).ok());
  }
  for (int n : {-1, 1001}) {
    CAPTURE(n);
    r.shards = n;
    const Status st = CheckSubmit(r);
    CHECK(st.field() == "shards");
    CHECK(st.message() == "shards: " + std::to_string(n) + " is not a shard count (1 to 1000)");
  }
  r.shards = 2;
  r.spec.key = "k";
  CHECK(CheckSubmit(r).field() == "shards");
  r.spec.key.reset();
  r.spec.stdin_data = std::string(kMaxStdinBytes, 'x');  // 8 copies pass 64 MiB
  r.shards = 7;
  CHECK(CheckSubmit(r).ok());
  r.shards = 8;
  const Status big = CheckSubmit(r);
  CHECK(big.code() == ErrorCode::kLimit);
  CHECK(big.field() == "shards");
}

TEST_CASE("queue, labels and key must be UTF-8 text: they travel as JSON strings") {
  SubmitRequest r = Echo();
  r.spec.labels = {"ok", "bad\xff"};
  Status st = CheckSubmit(r);
  CHECK(st.field() == "label");
  CHECK(st.message().find("\"bad\\xff\"") != std::string::npos);
  CHECK(json(st.message()).dump().size() > 0);  // the message itself is valid UTF-8

  r = Echo();
  r.spec.key = std::string("k\xc3");
  CHECK(CheckSubmit(r).field() == "key");
  r = Echo();
  r.spec.queue = "q\xfe";
  CHECK(CheckSubmit(r).field() == "queue");
  // Bytes fields may hold anything.
  r = Echo({"printf", "\xff"});
  r.spec.cwd = "/tmp/\xe9";
  CHECK(CheckSubmit(r).ok());
}

TEST_CASE("host: a host name, or a refusal naming the field and what is allowed") {
  for (const std::string& bad :
       {std::string("web 1"), std::string("-x"), std::string("h\xff"), std::string(65, 'a')}) {
    SubmitRequest r = Echo();
    r.spec.run_on = bad;
    Status st = CheckSubmit(r);
    CHECK(st.field() == "host");
    CHECK(st.message().find("use 1 to 64 letters") != std::string::npos);
  }
  json j = SubmitToJson(Echo());
  j["host"] = 7;
  Result<SubmitRequest> number = SubmitFromJson(Fields(j));
  REQUIRE_FALSE(number.ok());
  CHECK(number.status().field() == "host");
  SubmitRequest ok = Echo();
  ok.spec.run_on = "web-1.example_2";
  CHECK(CheckSubmit(ok).ok());
}

TEST_CASE("SubmitFields lists every field a submit request's wire form can carry") {
  SubmitRequest r = Echo();
  r.spec.shell = std::nullopt;
  r.spec.stdin_data = "in";
  r.spec.key = "k";
  r.spec.version = 2;
  r.spec.pending_ttl_ms = 1000;
  r.retry.retries = 1;
  r.retry.backoff = BackoffKind::kFixed;
  r.retry.base_ms = 1;
  r.retry.max_ms = 2;
  r.retry.jitter = false;
  r.retry.retry_on_exit = std::vector<int>{1};
  r.retry.no_retry_on_exit = std::vector<int>{2};
  r.supersede_running = true;
  r.spec.keep_background = true;
  r.spec.notify.on_failure = "f";
  r.spec.notify.on_success = "s";
  r.spec.notify.on_finish = "e";
  r.spec.notify.mailto = "a@b";
  r.spec.notify.mail_on = MailOn::kAlways;
  r.spec.use = {{"gpu", 2}, {"licence", 1}};
  r.spec.run_on = "web-2";
  auto back = SubmitFromJson(SubmitToJson(r));
  REQUIRE_MESSAGE(back.ok(), back.status().message());
  CHECK(back->spec.notify == r.spec.notify);
  CHECK(back->spec.use == r.spec.use);
  CHECK(back->spec.run_on == "web-2");
  json j = SubmitToJson(r);
  r.spec.argv.clear();
  r.spec.shell = "true";
  j.update(SubmitToJson(r));
  r.spec.shell = std::nullopt;
  r.spec.stages = {{"a", {"true"}, std::nullopt, std::nullopt, {}}};
  j.update(SubmitToJson(r));
  r.shards = 2;  // (with a key tqd refuses it; here only the names count)
  j.update(SubmitToJson(r));
  const std::vector<std::string>& fields = SubmitFields();
  for (const auto& [name, value] : j.items()) {
    CAPTURE(name);
    CHECK(std::find(fields.begin(), fields.end(), name) != fields.end());
  }
  CHECK(fields.size() == j.size());
}

TEST_CASE("use: an object of resource names and unit counts, each checked") {
  const struct {
    json use;
    const char* message;
  } cases[] = {
      {json::array({1}), "use: an object of resource names and counts"},
      {"gpu", "use: an object of resource names and counts"},
      {{{"GPU", 1}}, "use: \"GPU\" is not a resource name"},
      {{{"gpu", 0}}, "use: gpu=0 is not a count of units (use 1 to 1024)"},
      {{{"gpu", 1025}}, "use: gpu=1025 is not a count of units"},
      {{{"gpu", 1.5}}, "use: gpu=1.5 is not a count of units"},
      {{{"gpu", "2"}}, "use: gpu=\"2\" is not a count of units"},
      {{{"gpu", 99999999999}}, "use: gpu=99999999999 is not a count of units"},
  };
  for (const auto& c : cases) {
    json j = SubmitToJson(Echo());
    j["use"] = c.use;
    CAPTURE(j.dump());
    auto r = SubmitFromJson(j);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == "use");
    CHECK(r.status().message().find(c.message) == 0);
  }
  json many = json::object();
  for (int i = 0; i < 65; ++i) many["r" + std::to_string(i)] = 1;
  json j = SubmitToJson(Echo());
  j["use"] = many;
  auto r = SubmitFromJson(j);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "use: 65 resources exceed the limit of 64");
  j["use"] = nullptr;
  CHECK(SubmitFromJson(j).ok());
}

TEST_CASE("stages travel whole on the wire, bytes and own settings included") {
  SubmitRequest r = Echo({});
  StageSpec dump{"dump", {"pg_dump", "d\xff"}, std::nullopt, 60000, {}};
  StageSpec gz{"gz", {}, "gzip \"$TQ_CONTEXT/db.sql\"", std::nullopt, {}};
  gz.retry.retries = 5;
  gz.retry.backoff = BackoffKind::kFixed;
  gz.retry.no_retry_on_exit = std::vector<int>{2};
  r.spec.stages = {dump, gz};
  auto back = SubmitFromJson(SubmitToJson(r));
  REQUIRE_MESSAGE(back.ok(), back.status().message());
  REQUIRE(back->spec.stages.size() == 2);
  CHECK(back->spec.stages[0].argv == dump.argv);
  CHECK(back->spec.stages[0].timeout_ms == 60000);
  CHECK(back->spec.stages[1].shell == gz.shell);
  CHECK(back->spec.stages[1].retry.retries == 5);
  CHECK(back->spec.stages[1].retry.backoff == BackoffKind::kFixed);
  CHECK(back->spec.stages[1].retry.no_retry_on_exit == std::vector<int>{2});
  CHECK_FALSE(back->spec.stages[1].retry.jitter);
}

TEST_CASE("stages: every refusal names the field, the stage and what is allowed") {
  const json good = {{"name", "a"}, {"argv", {"true"}}};
  json sixty_five = json::array();
  for (int i = 0; i < 65; ++i)
    sixty_five.push_back({{"name", "s" + std::to_string(i)}, {"argv", {"true"}}});
  const struct {
    json stages;
    bool with_argv;
    const char* message;
  } cases[] = {
      {"x", false, "stages: expected an array of stages, got a string"},
      {json::array({1}), false, "stages[0]: expected an object with name and argv or shell"},
      {json::array({{{"name", "a"}}}), false,
       "stages[0] (a): argv: a command is required (argv after --, or --shell)"},
      {json::array({{{"name", "a b"}, {"argv", {"true"}}}}), false,
       "stages[0]: name \"a b\" is not a stage name (1 to 64 of A-Z a-z 0-9 _ . -)"},
      {json::array({{{"argv", {"true"}}}}), false, "stages[0]: name \"\" is not a stage name"},
      {json::array({good, good}), false,
       "stages[1]: name \"a\" is taken by stages[0] (names are unique in a task)"},
      {json::array({{{"name", "a"}, {"argv", {"true"}}, {"shell", "x"}}}), false,
       "stages[0] (a): shell: give either argv or a shell command, not both"},
      {json::array({{{"name", "a"}, {"argv", {"true"}}, {"comand", "x"}}}), false,
       "stages[0]: \"comand\" is not a field of a stage"},
      {json::array({{{"name", "a"}, {"argv", {"true"}}, {"retries", 1001}}}), false,
       "stages[0]: retries: 1001 is out of range 0..1000"},
      {json::array({{{"name", "a"}, {"argv", {"true"}}, {"timeout_ms", -1}}}), false,
       "stages[0] (a): timeout_ms: -1 is out of range"},
      {json::array({{{"name", "a"}, {"argv", {""}}}}), false,
       "stages[0] (a): argv: the program name (the first argument) is empty"},
      {json::array({good}), true, "stages: a task with stages runs its stages' commands"},
      {sixty_five, false, "stages: 65 stages exceed the limit of 64"},
  };
  for (const auto& c : cases) {
    json j = SubmitToJson(Echo());
    if (!c.with_argv) j.erase("argv");
    j["stages"] = c.stages;
    CAPTURE(j.dump());
    auto r = SubmitFromJson(j);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == "stages");
    CHECK_MESSAGE(r.status().message().find(c.message) == 0, r.status().message());
  }
  json j = SubmitToJson(Echo());
  j.erase("argv");
  j["stages"] = json::array({good});
  CHECK(SubmitFromJson(j).ok());
}

}  // namespace
}  // namespace tq
