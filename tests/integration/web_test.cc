// tq web (SPEC 15) against a real tqd, over real HTTP: nothing but /login answers without the
// token's session, every change needs the CSRF token, --read-only refuses changes, the API
// speaks tqd's protocol with the rights of the user running the console, the event stream
// carries tasks as they change, and bad requests are refused while the console stays up.
#include <doctest/doctest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "support/http_client.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A `tq web` of its own on a free loopback port (or `listen`), serving the test daemon.
class TestWeb {
 public:
  explicit TestWeb(const TestDaemon& d, std::vector<std::string> flags = {},
                   std::optional<RunAs> who = std::nullopt, std::string listen = "127.0.0.1:0") {
    std::vector<std::string> args = {"web", "--listen", listen};
    args.insert(args.end(), flags.begin(), flags.end());
    process_ = who ? TqBackgroundAs(d, *who, args) : TqBackground(d, args);
    REQUIRE_MESSAGE(process_->WaitOutput(
                        [](const std::string& out) { return out.find('\n') != std::string::npos; }),
                    "tq web printed no address: " << process_->err());
    // "tq web: http://127.0.0.1:PORT/login?token=T", or behind a proxy "tq web: serving on
    // unix:PATH for ...".
    const std::string line = process_->out().substr(0, process_->out().find('\n'));
    if (listen.starts_with("unix:")) {
      to.unix_path = listen.substr(5);
    } else {
      const size_t at = line.find("127.0.0.1:");
      REQUIRE_MESSAGE(at != std::string::npos, line);
      port = std::stoi(line.substr(at + 10));
      to.port = port;
    }
  }
  ~TestWeb() {
    kill(process_->pid(), SIGTERM);
    const RunResult r = process_->Finish();
    CHECK_MESSAGE(r.exit_code == 0, "tq web on TERM: " << r.err);
  }

  // The sign-in token tq web printed last (each sign-in spends one and prints the next).
  std::string Token() const {
    const std::string& out = process_->out();
    const size_t t = out.rfind("token=");
    REQUIRE_MESSAGE(t != std::string::npos, out);
    return out.substr(t + 6, out.find('\n', t) - t - 6);
  }

  // Signs in with the latest token, as `who` when given; the Cookie header the session takes.
  std::string SignIn(std::optional<RunAs> who = std::nullopt) const {
    const size_t lines = Lines();
    HttpPeerSpec from = to;
    from.as = who;
    const HttpReply r = HttpCall(from, "GET", "/login?token=" + Token());
    REQUIRE(r.status == 303);
    const std::string set = r.headers.at("set-cookie");
    CHECK(set.find("HttpOnly") != std::string::npos);
    CHECK(set.find("SameSite=Strict") != std::string::npos);
    // The next sign-in's line.
    REQUIRE(process_->WaitOutput([&](const std::string& out) {
      return static_cast<size_t>(std::count(out.begin(), out.end(), '\n')) > lines;
    }));
    return "Cookie: " + set.substr(0, set.find(';'));
  }

  // The CSRF token the page hands its script.
  std::string Csrf(const std::string& cookie) const {
    const HttpReply page = HttpCall(to, "GET", "/", {cookie});
    REQUIRE(page.status == 200);
    const std::string marker = "name=\"tq-csrf\" content=\"";
    const size_t at = page.body.find(marker);
    REQUIRE(at != std::string::npos);
    return page.body.substr(at + marker.size(), 64);
  }

  // What tq web printed so far.
  const std::string& out() const { return process_->out(); }
  // What tq web wrote to its standard error so far (read for a moment first).
  std::string Err() const {
    process_->Pump(200);
    return process_->err();
  }

  int port = 0;
  HttpPeerSpec to;  ///< where it listens

 private:
  size_t Lines() const { return static_cast<size_t>(std::count(out().begin(), out().end(), '\n')); }

  std::unique_ptr<Process> process_;
};

// `body` as a GET's q argument, percent-encoded.
std::string Query(const std::string& body) {
  std::string out;
  for (unsigned char c : body) {
    if (std::isalnum(c) != 0) {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return "?q=" + out;
}

// A daemon running a task of root's and, where users can be made, one of a second user's
// (cancelled before that user is removed, which userdel refuses while the user has a process).
struct TwoUsersTasks {
  TwoUsersTasks() {
    if (!CanMakeUsers()) return;
    other.emplace();
    theirs = SubmitAs(d, *other, {"--", "sleep", "600"});
  }
  ~TwoUsersTasks() {
    if (other) TqAs(d, other->run_as(), {"cancel", theirs});
  }
  TestDaemon d;
  std::string roots = Submit(d, {"--", "sleep", "600"});
  std::optional<TempUser> other;  ///< none where this process cannot make users
  std::string theirs;
};

nlohmann::json JsonOf(const HttpReply& r) {
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  REQUIRE_MESSAGE(j.is_object(), r.body);
  return j;
}

}  // namespace

TEST_CASE("tq web: nothing answers without the token, and a change needs the CSRF token") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "sleep", "600"});
  TestWeb web(d);
  for (const char* path : {"/", "/tasks", "/api/list", "/api/events", "/assets/console.js"})
    CHECK_MESSAGE(HttpCall(web.port, "GET", path).status == 401, path);
  CHECK(HttpCall(web.port, "GET", "/login?token=" + std::string(64, '0')).status == 403);
  CHECK(HttpCall(web.port, "GET", "/api/list", {"Cookie: tq_session_1=x"}).status == 401);

  const std::string cookie = web.SignIn();
  const HttpReply page = HttpCall(web.port, "GET", "/tasks", {cookie});
  CHECK(page.status == 200);
  CHECK(page.headers.at("content-security-policy").find("default-src 'none'") != std::string::npos);
  CHECK(page.headers.at("referrer-policy") == "no-referrer");
  CHECK(HttpCall(web.port, "GET", "/assets/console.js", {cookie}).status == 200);
  const nlohmann::json listed = JsonOf(HttpCall(web.port, "GET", "/api/list", {cookie}));
  REQUIRE(listed["tasks"].size() == 1);
  CHECK(listed["tasks"][0]["id"].dump() == id);
  const nlohmann::json one =
      JsonOf(HttpCall(web.port, "GET", "/api/status" + Query("{\"id\": " + id + "}"), {cookie}));
  CHECK(one["task"]["state"] == "running");

  // A change without the CSRF token, or with a wrong one, changes nothing.
  const std::string cancel = "{\"ids\": [" + id + "]}";
  CHECK(HttpCall(web.port, "POST", "/api/cancel", {cookie}, cancel).status == 403);
  CHECK(HttpCall(web.port, "POST", "/api/cancel", {cookie, "X-CSRF-Token: " + std::string(64, 'a')},
                 cancel)
            .status == 403);
  CHECK(TaskState(d, id) == "running");
  const HttpReply done = HttpCall(web.port, "POST", "/api/cancel",
                                  {cookie, "X-CSRF-Token: " + web.Csrf(cookie)}, cancel);
  CHECK(done.status == 200);
  CHECK(TaskState(d, id) == "cancelled");
}

TEST_CASE("tq web --read-only shows everything and changes nothing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "sleep", "600"});
  TestWeb web(d, {"--read-only"});
  const std::string cookie = web.SignIn();
  const HttpReply page = HttpCall(web.port, "GET", "/", {cookie});
  CHECK(page.body.find("name=\"tq-read-only\" content=\"true\"") != std::string::npos);
  CHECK(JsonOf(HttpCall(web.port, "GET", "/api/list", {cookie}))["tasks"].size() == 1);
  const std::string csrf = "X-CSRF-Token: " + web.Csrf(cookie);
  const HttpReply refused =
      HttpCall(web.port, "POST", "/api/cancel", {cookie, csrf}, "{\"ids\": [" + id + "]}");
  CHECK(refused.status == 403);
  CHECK(JsonOf(refused)["error"]["message"].get<std::string>().find("read-only") !=
        std::string::npos);
  CHECK(HttpCall(web.port, "POST", "/api/queue", {cookie, csrf},
                 "{\"action\": \"pause\", \"name\": \"default\"}")
            .status == 403);
  CHECK(TaskState(d, id) == "running");
}

TEST_CASE("tq web's event stream carries a submitted task as it changes") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  TestWeb web(d);
  const std::string cookie = web.SignIn();
  HttpStream events(web.port, "/api/events", {cookie});
  REQUIRE(
      events.WaitFor([](const std::string& s) { return s.find("retry:") != std::string::npos; }));
  const std::string id = Submit(d, {"--", "true"});
  CHECK(events.WaitFor([&](const std::string& s) {
    return s.find("data: {\"event\":") != std::string::npos &&
           s.find("\"id\":" + id + ",") != std::string::npos &&
           s.find("\"state\":\"succeeded\"") != std::string::npos;
  }));
  CHECK(events.received().find("Content-Type: text/event-stream") != std::string::npos);
}

TEST_CASE("tq web refuses bad requests with a clear answer and stays up") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  TestWeb web(d);
  const std::string cookie = web.SignIn();
  const std::string csrf = "X-CSRF-Token: " + web.Csrf(cookie);
  // Calls the console does not make, or makes otherwise.
  CHECK(HttpCall(web.port, "GET", "/api/submit" + Query("{}"), {cookie}).status == 404);
  CHECK(HttpCall(web.port, "POST", "/api/submit", {cookie, csrf}, "{\"argv\": [\"id\"]}").status ==
        404);
  CHECK(HttpCall(web.port, "GET", "/api/cancel", {cookie}).status == 404);
  CHECK(HttpCall(web.port, "GET", "/api/queue" + Query("{\"action\": \"pause\", \"name\": \"x\"}"),
                 {cookie})
            .status == 400);
  CHECK(HttpCall(web.port, "GET", "/api/../etc/passwd", {cookie}).status == 404);
  CHECK(HttpCall(web.port, "DELETE", "/", {cookie}).status == 405);
  CHECK(HttpCall(web.port, "GET", "/nowhere", {cookie}).status == 404);
  CHECK(HttpCall(web.port, "GET", "/assets/console.html", {cookie}).status == 404);
  // Values tqd's decoder refuses: the field is named.
  const HttpReply bad =
      HttpCall(web.port, "GET", "/api/list" + Query("{\"limit\": \"many\"}"), {cookie});
  CHECK(bad.status == 400);
  CHECK(JsonOf(bad)["error"]["field"] == "limit");
  CHECK(HttpCall(web.port, "GET", "/api/list" + Query("[1"), {cookie}).status == 400);
  CHECK(HttpCall(web.port, "GET", "/api/status" + Query("{\"id\": 999}"), {cookie}).status == 404);
  // Fields of the wrong type where the console looks before tqd does (once a crash of tq web).
  const HttpReply action =
      HttpCall(web.port, "POST", "/api/queue", {cookie, csrf}, "{\"action\": 111}");
  CHECK(action.status == 400);
  CHECK(JsonOf(action)["error"]["field"] == "action");
  CHECK(HttpCall(web.port, "GET", "/api/queue" + Query("{\"action\": [1]}"), {cookie}).status ==
        400);
  const HttpReply follow =
      HttpCall(web.port, "GET", "/api/logs" + Query("{\"id\": 1, \"follow\": \"yes\"}"), {cookie});
  CHECK(follow.status >= 400);
  CHECK(follow.status < 500);
  // A body over the limit, announced or not.
  CHECK(
      HttpCall(web.port, "POST", "/api/cancel", {cookie, csrf}, std::string(100000, ' ')).status ==
      413);
  // Still serving.
  CHECK(HttpCall(web.port, "GET", "/api/stats", {cookie}).status == 200);
}

TEST_CASE("tq web keeps at most 16 event streams open, so tqd's connections last") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  TestWeb web(d);
  const std::string cookie = web.SignIn();
  std::vector<std::unique_ptr<HttpStream>> streams;
  for (int i = 0; i < 16; ++i) {
    streams.push_back(
        std::make_unique<HttpStream>(web.port, "/api/events", std::vector<std::string>{cookie}));
    REQUIRE(streams.back()->WaitFor(
        [](const std::string& s) { return s.find("retry:") != std::string::npos; }));
  }
  const HttpReply refused = HttpCall(web.port, "GET", "/api/events", {cookie});
  CHECK(refused.status == 503);
  CHECK(HttpCall(web.port, "GET", "/api/stats", {cookie}).status == 200);
  CHECK(Tq(d, {"ping"}).exit_code == 0);
}

TEST_CASE_FIXTURE(
    TwoUsersTasks,
    "a second user's console shows that user's tasks only and acts on no one else's") {
  if (!other) TQ_SKIP("needs root and useradd to make a second user");
  TQ_LOG_ON_FAILURE(d);
  TestWeb web(d, {}, other->run_as());
  const std::string cookie = web.SignIn();
  const nlohmann::json listed = JsonOf(HttpCall(web.port, "GET", "/api/list", {cookie}));
  REQUIRE(listed["tasks"].size() == 1);
  CHECK(listed["tasks"][0]["id"].dump() == theirs);
  CHECK(HttpCall(web.port, "GET", "/api/status" + Query("{\"id\": " + roots + "}"), {cookie})
            .status == 404);
  const std::string csrf = "X-CSRF-Token: " + web.Csrf(cookie);
  CHECK(HttpCall(web.port, "POST", "/api/cancel", {cookie, csrf}, "{\"ids\": [" + roots + "]}")
            .status == 404);
  CHECK(TaskState(d, roots) == "running");
  CHECK(HttpCall(web.port, "POST", "/api/cancel", {cookie, csrf}, "{\"ids\": [" + theirs + "]}")
            .status == 200);
  CHECK(TaskState(d, theirs) == "cancelled");
}

TEST_CASE("tq web's plain pages show tasks and jobs without JavaScript, escaped, read-only") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string hostile =
      Submit(d, {"--shell", "echo '<script>alert(1)</script>'; echo 'x&y' >&2; exit 3"});
  REQUIRE(WaitState(d, hostile, "failed"));
  const std::string sleeper = Submit(d, {"--queue", "batch", "--", "sleep", "600"});
  TestWeb web(d);
  for (const char* path : {"/plain", "/plain/tasks", "/plain/jobs"})
    CHECK_MESSAGE(HttpCall(web.port, "GET", path).status == 401, path);
  const std::string cookie = web.SignIn();

  // The console page points a browser without JavaScript at the plain page of the same thing.
  const HttpReply console = HttpCall(web.port, "GET", "/tasks/" + hostile, {cookie});
  CHECK(console.body.find("href=\"/plain/tasks/" + hostile + "\"") != std::string::npos);
  CHECK(HttpCall(web.port, "GET", "/tasks/\"><b>", {cookie}).body.find("<b>") == std::string::npos);

  HttpReply overview;
  CHECK_MESSAGE(WaitFor([&] {
                  overview = HttpCall(web.port, "GET", "/plain", {cookie});
                  return overview.body.find("/plain/tasks?queue=default&amp;state=failed\">1<") !=
                             std::string::npos &&
                         overview.body.find("batch</a></td><td>1/∞") != std::string::npos;
                }),
                overview.body);
  CHECK(overview.status == 200);

  const HttpReply tasks = HttpCall(web.port, "GET", "/plain/tasks?state=running", {cookie});
  CHECK(tasks.status == 200);
  CHECK(tasks.body.find("href=\"/plain/tasks/" + sleeper + "\"") != std::string::npos);
  CHECK(tasks.body.find("href=\"/plain/tasks/" + hostile + "\"") == std::string::npos);
  CHECK(tasks.body.find("<form") != std::string::npos);
  CHECK(tasks.body.find("<script") == std::string::npos);
  const HttpReply by_text = HttpCall(web.port, "GET", "/plain/tasks?text=ALERT", {cookie});
  CHECK(by_text.body.find("href=\"/plain/tasks/" + hostile + "\"") != std::string::npos);
  CHECK(by_text.body.find("href=\"/plain/tasks/" + sleeper + "\"") == std::string::npos);

  const HttpReply task = HttpCall(web.port, "GET", "/plain/tasks/" + hostile, {cookie});
  CHECK(task.status == 200);
  CHECK(task.body.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(task.body.find("x&amp;y") != std::string::npos);
  CHECK(task.body.find("exit 3") != std::string::npos);
  CHECK(task.body.find("<script") == std::string::npos);
  CHECK(task.body.find("<button") == std::string::npos);

  CHECK(HttpCall(web.port, "GET", "/plain/tasks/999", {cookie}).status == 404);
  CHECK(HttpCall(web.port, "GET", "/plain/tasks/x1", {cookie}).status == 404);
  CHECK(HttpCall(web.port, "GET", "/plain/tasks?state=sleepy", {cookie}).status == 400);
  CHECK(HttpCall(web.port, "GET", "/plain/tasks?before=abc", {cookie}).status == 400);
  CHECK(HttpCall(web.port, "GET", "/plain/jobs", {cookie}).status == 200);
  // A load error names its file and line once.
  d.WriteJobFile("bad.toml", "[[job]]\nname = \"bad\"\nschedule = \"often\"\ncommand = \"true\"\n");
  CHECK(Tq(d, {"reload"}).exit_code == 2);
  const HttpReply jobs = HttpCall(web.port, "GET", "/plain/jobs", {cookie});
  const std::string where = d.jobs_dir() + "/bad.toml:3";
  CHECK_MESSAGE(jobs.body.find("<code>" + where + "</code> schedule: ") != std::string::npos,
                jobs.body);
  CHECK(jobs.body.find(where, jobs.body.find(where) + 1) == std::string::npos);
  CHECK(HttpCall(web.port, "POST", "/plain/tasks", {cookie, "X-CSRF-Token: " + web.Csrf(cookie)})
            .status == 405);
  CHECK(TaskState(d, sleeper) == "running");
}

TEST_CASE("tq web's list filters by command text on the server and pages on") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  std::vector<std::string> wanted;
  for (int i = 0; i < 5; ++i) {
    wanted.push_back(Submit(d, {"--delay", "1h", "--", "echo", "Wanted-" + std::to_string(i)}));
    Submit(d, {"--delay", "1h", "--", "echo", "other"});
  }
  TestWeb web(d);
  const std::string cookie = web.SignIn();
  const nlohmann::json first = JsonOf(HttpCall(
      web.port, "GET", "/api/list" + Query("{\"command\": \"wanted\", \"limit\": 3}"), {cookie}));
  REQUIRE(first["tasks"].size() == 3);
  CHECK(first["tasks"][0]["id"].dump() == wanted[4]);
  CHECK(first["more"] == true);
  const std::string next = first["next_before_id"].dump();
  const nlohmann::json second = JsonOf(HttpCall(
      web.port, "GET",
      "/api/list" + Query("{\"command\": \"wanted\", \"limit\": 3, \"before_id\": " + next + "}"),
      {cookie}));
  REQUIRE(second["tasks"].size() == 2);
  CHECK(second["tasks"][1]["id"].dump() == wanted[0]);
  CHECK(second["more"] == false);
}

TEST_CASE_FIXTURE(
    TwoUsersTasks,
    "tq web --trust-user-header acts for the user its proxy names, and for no one else") {
  if (!other) TQ_SKIP("needs root and useradd to make a second user");
  TQ_LOG_ON_FAILURE(d);
  const std::string as_other = "X-Remote-User: " + other->name();
  // The proxy's socket, in a directory the second user may write (for its own console).
  const std::string sockets = d.dir() + "/web";
  REQUIRE(mkdir(sockets.c_str(), 0700) == 0);
  REQUIRE(chown(sockets.c_str(), other->uid(), other->gid()) == 0);
  {
    TestWeb web(d, {"--trust-user-header", "X-Remote-User"}, std::nullopt,
                "unix:" + sockets + "/root.sock");
    CHECK(web.out().find("serving on unix:" + sockets + "/root.sock for the users") !=
          std::string::npos);
    // Without the header (or with no user name in it) nothing answers; there is no login.
    CHECK(HttpCall(web.to, "GET", "/api/list").status == 401);
    CHECK(HttpCall(web.to, "GET", "/").status == 401);
    CHECK(HttpCall(web.to, "GET", "/api/list", {"X-Remote-User: no body"}).status == 401);
    CHECK(HttpCall(web.to, "GET", "/login?token=x", {as_other}).status == 404);
    // Root's console acts for the user named: their tasks only, and no change to root's.
    const nlohmann::json listed = JsonOf(HttpCall(web.to, "GET", "/api/list", {as_other}));
    REQUIRE(listed["tasks"].size() == 1);
    CHECK(listed["tasks"][0]["id"].dump() == theirs);
    CHECK(HttpCall(web.to, "GET", "/plain/tasks/" + roots, {as_other}).status == 404);
    const HttpReply page = HttpCall(web.to, "GET", "/", {as_other});
    const std::string marker = "name=\"tq-csrf\" content=\"";
    const std::string csrf =
        "X-CSRF-Token: " + page.body.substr(page.body.find(marker) + marker.size(), 64);
    const std::string cancel_roots = "{\"ids\": [" + roots + "]}";
    CHECK(HttpCall(web.to, "POST", "/api/cancel", {as_other}, cancel_roots).status == 403);
    CHECK(HttpCall(web.to, "POST", "/api/cancel", {as_other, csrf}, cancel_roots).status == 404);
    // That user's CSRF token is theirs: named root, it changes nothing.
    CHECK(HttpCall(web.to, "POST", "/api/cancel", {"X-Remote-User: root", csrf}, cancel_roots)
              .status == 403);
    CHECK(TaskState(d, roots) == "running");
    CHECK(HttpCall(web.to, "GET", "/api/list", {"X-Remote-User: tqnosuchuser"}).status == 404);
    // Named root, the console is root's.
    CHECK(JsonOf(HttpCall(web.to, "GET", "/api/list", {"X-Remote-User: root"}))["tasks"].size() ==
          2);
  }
  {
    // A console run by another user acts for that user only: tqd refuses to act for root.
    TestWeb web(d, {"--trust-user-header", "X-Remote-User"}, other->run_as(),
                "unix:" + sockets + "/theirs.sock");
    const HttpReply refused = HttpCall(web.to, "GET", "/api/list", {"X-Remote-User: root"});
    CHECK(refused.status == 403);
    CHECK(JsonOf(refused)["error"]["field"] == "as_user");
    CHECK(JsonOf(HttpCall(web.to, "GET", "/api/list", {as_other}))["tasks"].size() == 1);
  }
}

TEST_CASE("tq web --trust-user-header is refused on every TCP address, loopback included") {
  TestDaemon d;
  // Every account of the machine reaches a loopback port, and could name root in the header.
  for (const char* listen : {"127.0.0.1:0", "[::1]:0", "0.0.0.0:0", "localhost:0"}) {
    CAPTURE(listen);
    const RunResult r = Tq(d, {"web", "--listen", listen, "--trust-user-header", "X-Remote-User"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--trust-user-header") != std::string::npos);
    CHECK(r.err.find("every account of this machine can reach") != std::string::npos);
    CHECK(r.err.find("unix:PATH") != std::string::npos);
  }
  // The default address is TCP as well.
  CHECK(Tq(d, {"web", "--trust-user-header", "X-Remote-User"}).exit_code == 2);
}

TEST_CASE_FIXTURE(TwoUsersTasks,
                  "another account gets nothing from root's console: a copied cookie, a spent "
                  "token, a Host of its own") {
  if (!other) TQ_SKIP("needs root and useradd to make a second user");
  TQ_LOG_ON_FAILURE(d);
  TestWeb web(d);
  const std::string spent = web.Token();
  const std::string cookie = web.SignIn();
  const std::string csrf = "X-CSRF-Token: " + web.Csrf(cookie);
  HttpPeerSpec theirs_from = web.to;
  theirs_from.as = other->run_as();
  // The cookie and the CSRF token, replayed from the other account's connection: nothing.
  for (const char* path : {"/", "/tasks", "/api/list", "/api/events", "/plain/tasks"})
    CHECK_MESSAGE(HttpCall(theirs_from, "GET", path, {cookie}).status == 401, path);
  CHECK(HttpCall(theirs_from, "GET",
                 "/api/status" + Query("{\"id\": " + roots + ", \"env\": true}"), {cookie})
            .status == 401);
  CHECK(HttpCall(theirs_from, "POST", "/api/cancel", {cookie, csrf}, "{\"ids\": [" + roots + "]}")
            .status == 401);
  CHECK(TaskState(d, roots) == "running");
  // The token printed at start signed root in once and is spent.
  CHECK(HttpCall(theirs_from, "GET", "/login?token=" + spent).status == 403);
  // A name of the other account's choosing that points at 127.0.0.1 (DNS rebinding).
  CHECK(HttpCall(web.to, "GET", "/api/list",
                 {cookie, "Host: rebind.example:" + std::to_string(web.port)})
            .status == 400);
  // Root's own requests still work; a sign-out ends the session.
  CHECK(HttpCall(web.to, "GET", "/api/list", {cookie}).status == 200);
  CHECK(HttpCall(web.to, "POST", "/logout", {cookie, csrf}).status == 200);
  CHECK(HttpCall(web.to, "GET", "/api/list", {cookie}).status == 401);
  // A session the other account signs in to (with a token it was given) is its own: root's
  // connection cannot use it either.
  const std::string its_cookie = web.SignIn(other->run_as());
  CHECK(HttpCall(theirs_from, "GET", "/api/stats", {its_cookie}).status == 200);
  CHECK(HttpCall(web.to, "GET", "/api/stats", {its_cookie}).status == 401);
}

TEST_CASE_FIXTURE(TwoUsersTasks,
                  "a crowd of half-open connections from another account does not shut the "
                  "console's user out" *
                      doctest::test_suite("long")) {
  if (!other) TQ_SKIP("needs root and useradd to make a second user");
  TQ_LOG_ON_FAILURE(d);
  TestWeb web(d);
  const std::string cookie = web.SignIn();
  HttpPeerSpec theirs_from = web.to;
  theirs_from.as = other->run_as();
  // 80 connections that each send part of a request line and then a byte now and then.
  std::vector<int> crowd;
  for (int i = 0; i < 80; ++i) {
    const int fd = HttpConnect(theirs_from);
    send(fd, "GET /api/li", 11, MSG_NOSIGNAL);
    crowd.push_back(fd);
  }
  // The console's user is served meanwhile, each time.
  for (int i = 0; i < 5; ++i) CHECK(HttpCall(web.to, "GET", "/api/stats", {cookie}).status == 200);
  // Beyond 32 the other account's connections were refused at once (503), and every one still
  // open is closed once its request is 10 s late, whatever it sends.
  int refused = 0;
  for (int fd : crowd) {
    char buf[512];
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 0) == 1 && recv(fd, buf, sizeof(buf), MSG_PEEK) > 0 &&
        std::string(buf, 12) == "HTTP/1.1 503")
      ++refused;
  }
  CHECK(refused >= 40);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  size_t closed = 0;
  while (closed < crowd.size() && std::chrono::steady_clock::now() < deadline) {
    closed = 0;
    for (int fd : crowd) {
      send(fd, "s", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      char buf[512];
      pollfd p{fd, POLLIN, 0};
      // Closed: the answer (if any) read, then the end.
      while (poll(&p, 1, 0) == 1) {
        const ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
        if (n <= 0) {
          ++closed;
          break;
        }
      }
    }
    if (closed < crowd.size()) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  CHECK(closed == crowd.size());
  for (int fd : crowd) close(fd);
  CHECK(HttpCall(web.to, "GET", "/api/stats", {cookie}).status == 200);
  // The refusals and cuts are a line or two in tq web's log, not one per connection.
  const std::string log = web.Err();
  const auto lines = std::count(log.begin(), log.end(), '\n');
  CHECK_MESSAGE(lines <= 6, log);
  CHECK_MESSAGE(log.find("refused a connection from uid " + std::to_string(other->uid())) !=
                    std::string::npos,
                log);
}

TEST_CASE(
    "tq web --token-file: the token is not printed, stays valid, and must be the console "
    "user's own") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/web-token";
  const std::string token = "5b0e9d2c47f1a3869e2d7c10b4f5a6d3";
  { std::ofstream(file) << token << "\n"; }
  REQUIRE(chmod(file.c_str(), 0600) == 0);
  TestWeb web(d, {"--token-file", file});
  CHECK(web.out().find(token) == std::string::npos);
  CHECK(web.out().find("(the token in " + file + ")") != std::string::npos);
  for (int i = 0; i < 2; ++i) CHECK(HttpCall(web.to, "GET", "/login?token=" + token).status == 303);
  if (CanMakeUsers()) {
    TempUser other;
    REQUIRE(chown(file.c_str(), other.uid(), other.gid()) == 0);
    const RunResult r = Tq(d, {"web", "--listen", "127.0.0.1:0", "--token-file", file});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("owned by uid " + std::to_string(other.uid())) != std::string::npos);
  }
}
