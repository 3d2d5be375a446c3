// The secrets of tq web: tokens made and read from a file, sign-ins and their sessions bound to
// the local user who signed in, the CSRF tokens, the Host check, and the routing that lets
// nothing but /login answer without a session.
#include "cli/web/web_access.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <unistd.h>

#include <fstream>
#include <vector>

#include "cli/web/web_console.h"
#include "support/temp_dir.h"

namespace tq {
namespace {

HttpRequest Get(const std::string& path) {
  HttpRequest r;
  r.method = "GET";
  r.path = path;
  return r;
}

// Writes `text` to `path` with `mode`.
void WriteWithMode(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  REQUIRE(chmod(path.c_str(), mode) == 0);
}

TEST_CASE("tokens: 64 hex digits each time anew, compared whole") {
  Result<std::string> a = WebAccess::RandomToken(), b = WebAccess::RandomToken();
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->size() == 64);
  CHECK(a->find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(*a != *b);
  CHECK(SameSecret(*a, *a));
  CHECK_FALSE(SameSecret(*a, *b));
  CHECK_FALSE(SameSecret(*a, a->substr(0, 63)));
  CHECK_FALSE(SameSecret("", *a));
}

constexpr const char* kGoodToken = "3f9c2a71d04be85f6a1c93e2b7d5084f";  // 32 hex digits

TEST_CASE("--token-file: the first line of a private file of one's own, hard enough to guess") {
  TempDir dir("web-token");
  struct Case {
    std::string text;
    mode_t mode;
    const char* refusal;  // part of the message, or nullptr when accepted
  };
  const std::string good = kGoodToken;
  const Case cases[] = {
      {good + "\n", 0600, nullptr},
      {good + "\r\nsecond line\n", 0400, nullptr},
      {good, 0644, "others may read"},
      {good, 0660, "others may read"},
      {"short\n", 0600, "16 to 256"},
      {"has space inside it\n", 0600, "16 to 256"},
      {"\n", 0600, "16 to 256"},
      {"aaaaaaaaaaaaaaaa\n", 0600, "too easy to guess (about 0 bits"},
      {"abcdefghijklmnop\n", 0600, "too easy to guess (about 64 bits"},
      {"abababababababababababababababababababab\n", 0600, "too easy to guess"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string path = dir.File("token");
    std::remove(path.c_str());
    WriteWithMode(path, c.text, c.mode);
    Result<std::string> token = WebAccess::TokenFromFile(path);
    if (c.refusal == nullptr) {
      REQUIRE(token.ok());
      CHECK(*token == good);
    } else {
      REQUIRE_FALSE(token.ok());
      CHECK(token.status().field() == "--token-file");
      CHECK(token.status().message().find(c.refusal) != std::string::npos);
    }
  }
  CHECK_FALSE(WebAccess::TokenFromFile(dir.File("missing")).ok());
  CHECK_FALSE(WebAccess::TokenFromFile(dir.path.string()).ok());  // a directory
  if (geteuid() == 0) {
    // Another account's file, however private, would let that account choose the token.
    const std::string path = dir.File("theirs");
    WriteWithMode(path, good + "\n", 0600);
    REQUIRE(chown(path.c_str(), 65534, 65534) == 0);
    Result<std::string> token = WebAccess::TokenFromFile(path);
    REQUIRE_FALSE(token.ok());
    CHECK(token.status().message().find("owned by uid 65534, not by uid 0") != std::string::npos);
  }
}

// A peer of this machine run by `uid`.
HttpPeer LocalUser(uid_t uid) {
  HttpPeer peer;
  peer.local = true;
  peer.uid = uid;
  peer.address = "127.0.0.1";
  return peer;
}

HttpPeer Remote(const std::string& address) {
  HttpPeer peer;
  peer.address = address;
  return peer;
}

ListenAddress At(const std::string& text) {
  Result<ListenAddress> a = ParseListenAddress(text);
  REQUIRE(a.ok());
  return *a;
}

// The value of the Set-Cookie header of `r` ("" without one).
std::string SetCookie(const HttpResponse& r) {
  for (const auto& [name, value] : r.headers)
    if (name == "Set-Cookie") return value;
  return "";
}

// A request as a browser of `peer` sends it to 127.0.0.1:8377.
HttpRequest From(const HttpPeer& peer, const std::string& path, const std::string& session = "") {
  HttpRequest r = Get(path);
  r.peer = peer;
  r.headers["host"] = "127.0.0.1:8377";
  if (!session.empty()) r.cookies["tq_session_8377"] = session;
  return r;
}

TEST_CASE(
    "the console: a printed token signs in once, each sign-in its own session, bound to "
    "the local user who signed in") {
  std::vector<std::string> printed;
  auto made = WebAccess::Make("logintoken-0123456789", At("127.0.0.1:8377"), true,
                              [&](const std::string& next) { printed.push_back(next); });
  REQUIRE(made.ok());
  WebAccess* access = made->get();
  // No tqd at this socket: calls that pass the checks answer 502.
  WebConsole console(std::move(*made), WebApiContext{"/nonexistent/tq.sock", false, std::nullopt});
  const HttpPeer alice = LocalUser(1000), mallory = LocalUser(1001);

  for (const char* path : {"/", "/api/list", "/assets/console.css", "/plain"})
    CHECK(console.Handle(From(alice, path)).status == 401);
  CHECK(console.Handle(From(alice, "/api/list")).content_type == "application/json");
  CHECK(console.Handle(From(alice, "/login")).status == 403);
  HttpRequest login = From(alice, "/login");
  login.query["token"] = "logintoken-012345678";
  CHECK(console.Handle(login).status == 403);
  CHECK(printed.empty());

  login.query["token"] = "logintoken-0123456789";
  const HttpResponse first = console.Handle(login);
  REQUIRE(first.status == 303);
  const std::string cookie = SetCookie(first);
  REQUIRE(cookie.rfind("tq_session_8377=", 0) == 0);
  for (const char* attribute : {"HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=43200"})
    CHECK(cookie.find(attribute) != std::string::npos);
  const std::string session = cookie.substr(16, cookie.find(';') - 16);
  // The token is spent: tq web printed the next one, which makes another session.
  REQUIRE(printed.size() == 1);
  CHECK(printed[0] != "logintoken-0123456789");
  CHECK(console.Handle(login).status == 403);
  login.query["token"] = printed[0];
  const std::string second = SetCookie(console.Handle(login));
  CHECK(second.substr(16, 64) != session);
  CHECK(printed.size() == 2);

  const HttpResponse page = console.Handle(From(alice, "/tasks/12", session));
  CHECK(page.status == 200);
  const std::string marker = "name=\"tq-csrf\" content=\"";
  const std::string csrf = page.body.substr(page.body.find(marker) + marker.size(), 64);
  CHECK(page.body.find("{{") == std::string::npos);
  CHECK(console.Handle(From(alice, "/assets/console.css", session)).content_type ==
        "text/css; charset=utf-8");
  CHECK(console.Handle(From(alice, "/assets/nothing.js", session)).status == 404);
  CHECK(console.Handle(From(alice, "/api/list", session)).status == 502);  // tqd unreachable
  HttpRequest head = From(alice, "/tasks", session);
  head.method = "HEAD";
  CHECK(console.Handle(head).status == 200);

  // Another local account replaying the cookie gets nothing, nor does another machine.
  CHECK(console.Handle(From(mallory, "/", session)).status == 401);
  CHECK(console.Handle(From(mallory, "/api/list", session)).status == 401);
  CHECK(console.Handle(From(Remote("192.0.2.7"), "/", session)).status == 401);
  CHECK(access->PeerHasSession(alice));
  CHECK_FALSE(access->PeerHasSession(mallory));

  // The Host must name the console: no DNS rebinding.
  HttpRequest rebound = From(alice, "/api/list", session);
  rebound.headers["host"] = "evil.example:8377";
  CHECK(console.Handle(rebound).status == 400);
  rebound.headers["host"] = "127.0.0.1:9999";
  CHECK(console.Handle(rebound).status == 400);
  rebound.headers.erase("host");
  CHECK(console.Handle(rebound).status == 400);
  rebound.headers["host"] = "LOCALHOST:8377";
  CHECK(console.Handle(rebound).status == 502);

  // Changes carry this session's CSRF token; the other session's does not do.
  HttpRequest post = From(alice, "/api/cancel", session);
  post.method = "POST";
  post.body = R"({"ids": [1]})";
  CHECK(console.Handle(post).status == 403);
  const std::string other_csrf = [&] {
    const HttpResponse p = console.Handle(From(alice, "/", second.substr(16, 64)));
    return p.body.substr(p.body.find(marker) + marker.size(), 64);
  }();
  CHECK(other_csrf != csrf);
  post.headers["x-csrf-token"] = other_csrf;
  CHECK(console.Handle(post).status == 403);
  post.headers["x-csrf-token"] = csrf;
  CHECK(console.Handle(post).status == 502);  // past the checks
  post.body = R"({"ids": "one"})";
  CHECK(console.Handle(post).status == 400);  // tqd's decoder refuses it before sending

  // Sign-out ends this session only.
  HttpRequest out = From(alice, "/logout", session);
  out.method = "POST";
  CHECK(console.Handle(out).status == 403);  // without the CSRF token
  out.headers["x-csrf-token"] = csrf;
  const HttpResponse signed_out = console.Handle(out);
  CHECK(signed_out.status == 200);
  CHECK(SetCookie(signed_out).find("Max-Age=0") != std::string::npos);
  CHECK(console.Handle(From(alice, "/", session)).status == 401);
  CHECK(console.Handle(From(alice, "/", second.substr(16, 64))).status == 200);
}

TEST_CASE("the console: a token from a file stays valid, and read-only refuses changes") {
  auto made = WebAccess::Make(kGoodToken, At("127.0.0.1:8377"), false);
  REQUIRE(made.ok());
  WebConsole console(std::move(*made), WebApiContext{"/nonexistent/tq.sock", true, std::nullopt});
  HttpRequest login = From(LocalUser(0), "/login");
  login.query["token"] = kGoodToken;
  const std::string a = SetCookie(console.Handle(login)), b = SetCookie(console.Handle(login));
  REQUIRE(a.size() > 16);
  REQUIRE(b.size() > 16);
  CHECK(a.substr(16, 64) != b.substr(16, 64));
  const std::string session = a.substr(16, 64);
  const HttpResponse page = console.Handle(From(LocalUser(0), "/", session));
  CHECK(page.body.find("name=\"tq-read-only\" content=\"true\"") != std::string::npos);
  const std::string marker = "name=\"tq-csrf\" content=\"";
  HttpRequest post = From(LocalUser(0), "/api/cancel", session);
  post.method = "POST";
  post.body = R"({"ids": [1]})";
  post.headers["x-csrf-token"] = page.body.substr(page.body.find(marker) + marker.size(), 64);
  CHECK(console.Handle(post).status == 403);
}

TEST_CASE(
    "the console's Host: its address, localhost on loopback, the machine's name or any "
    "numeric address on a wildcard, any behind a Unix socket") {
  struct Case {
    const char* listen;
    const char* host;
    bool allowed;
  };
  char name[256] = {};
  REQUIRE(gethostname(name, sizeof(name) - 1) == 0);
  const std::string own = std::string(name) + ":8377";
  const Case cases[] = {
      {"127.0.0.1:8377", "127.0.0.1:8377", true},
      {"127.0.0.1:8377", "localhost:8377", true},
      {"127.0.0.1:8377", "localhost", false},
      {"127.0.0.1:8377", "127.0.0.1:8378", false},
      {"127.0.0.1:8377", "rebind.example:8377", false},
      {"127.0.0.1:8377", own.c_str(), false},
      {"[::1]:8377", "[::1]:8377", true},
      {"[::1]:8377", "localhost:8377", true},
      {"0.0.0.0:8377", "192.0.2.7:8377", true},
      {"0.0.0.0:8377", "[2001:db8::1]:8377", true},
      {"0.0.0.0:8377", own.c_str(), true},
      {"0.0.0.0:8377", "rebind.example:8377", false},
      {"0.0.0.0:8377", "192.0.2.7:80", false},
      {"0.0.0.0:80", "192.0.2.7", true},
      {"192.0.2.7:8377", "192.0.2.7:8377", true},
      {"192.0.2.7:8377", "192.0.2.8:8377", false},
      {"unix:/run/tq-web/web.sock", "anything.example", true},
  };
  for (const Case& c : cases) {
    CAPTURE(c.listen);
    CAPTURE(c.host);
    auto access = WebAccess::Make(kGoodToken, At(c.listen), false);
    REQUIRE(access.ok());
    HttpRequest r = Get("/");
    r.headers["host"] = c.host;
    CHECK((*access)->HostAllowed(r) == c.allowed);
  }
}

TEST_CASE("a unix: console's session cookie is named for its socket") {
  auto a = WebAccess::Make(kGoodToken, At("unix:/run/a.sock"), false);
  auto b = WebAccess::Make(kGoodToken, At("unix:/run/b.sock"), false);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const auto a_session = (*a)->SignIn(kGoodToken, LocalUser(33));
  const auto b_session = (*b)->SignIn(kGoodToken, LocalUser(33));
  REQUIRE(a_session);
  REQUIRE(b_session);
  const std::string a_name = (*a)->SessionCookie(*a_session).substr(0, 19);
  const std::string b_name = (*b)->SessionCookie(*b_session).substr(0, 19);
  CHECK(a_name.rfind("tq_session_", 0) == 0);
  CHECK(a_name != b_name);
  CHECK(a_name != "tq_session_0=");
}

TEST_CASE("sessions: each ends at its expiry, and the oldest goes when too many are live") {
  WebSessions sessions(std::chrono::hours(12), 3);
  const auto t0 = WebSessions::Clock::time_point{} + std::chrono::hours(1000);
  const HttpPeer alice = LocalUser(1000);
  Result<WebSession> first = sessions.Create(alice, t0);
  REQUIRE(first.ok());
  CHECK(sessions.Find(first->id, alice, t0 + std::chrono::hours(11)).has_value());
  CHECK(sessions.Holds(alice, t0 + std::chrono::hours(11)));
  CHECK_FALSE(sessions.Find(first->id, alice, t0 + std::chrono::hours(12)).has_value());
  CHECK_FALSE(sessions.Holds(alice, t0 + std::chrono::hours(12)));
  CHECK_FALSE(sessions.Find("", alice, t0).has_value());

  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    Result<WebSession> s = sessions.Create(alice, t0 + std::chrono::minutes(i));
    REQUIRE(s.ok());
    ids.push_back(s->id);
  }
  CHECK_FALSE(sessions.Find(ids[0], alice, t0 + std::chrono::minutes(5)).has_value());
  for (int i = 1; i < 4; ++i)
    CHECK(sessions.Find(ids[i], alice, t0 + std::chrono::minutes(5)).has_value());
  // Made from another machine: any other machine may use it, no local user.
  Result<WebSession> remote = sessions.Create(Remote("192.0.2.7"), t0);
  REQUIRE(remote.ok());
  CHECK(sessions.Find(remote->id, Remote("198.51.100.1"), t0).has_value());
  CHECK_FALSE(sessions.Find(remote->id, alice, t0).has_value());
}

TEST_CASE(
    "behind a proxy (a Unix socket only) the user is the header's, each with a CSRF token "
    "of their own") {
  CHECK_FALSE(WebAccess::BehindProxy("", At("unix:/run/p.sock")).ok());
  CHECK_FALSE(WebAccess::BehindProxy("X User", At("unix:/run/p.sock")).ok());
  CHECK(WebAccess::BehindProxy("X-Remote-User:", At("unix:/run/p.sock")).status().message() ==
        "--trust-user-header: \"X-Remote-User:\" is not a header name (1 to 64 of A-Z a-z 0-9 -)");
  for (const char* tcp : {"127.0.0.1:8377", "[::1]:8377", "0.0.0.0:8377"}) {
    CAPTURE(tcp);
    Result<std::unique_ptr<WebAccess>> refused = WebAccess::BehindProxy("X-Remote-User", At(tcp));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.status().message().find("every account of this machine can reach") !=
          std::string::npos);
  }
  auto made = WebAccess::BehindProxy("X-Remote-User", At("unix:/run/p.sock"));
  REQUIRE(made.ok());
  WebAccess* access = made->get();
  CHECK(access->BehindProxy());
  HttpRequest r = Get("/");
  r.peer = LocalUser(33);
  CHECK_FALSE(access->ProxyUser(r).has_value());
  for (const char* bad : {"", "no body", "../root", "a\nb"}) {
    r.headers["x-remote-user"] = bad;
    CHECK_FALSE(access->ProxyUser(r).has_value());
  }
  r.headers["x-remote-user"] = "alice";
  CHECK(access->ProxyUser(r) == "alice");
  CHECK_FALSE(access->SignIn("", r.peer).has_value());

  WebConsole console(std::move(*made), WebApiContext{"/nonexistent/tq.sock", false, std::nullopt});
  HttpRequest nobody = Get("/");
  CHECK(console.Handle(nobody).status == 401);
  HttpRequest login = Get("/login");
  login.query["token"] = "";
  login.headers["x-remote-user"] = "alice";
  CHECK(console.Handle(login).status == 404);
  const HttpResponse page = console.Handle(r);
  CHECK(page.status == 200);
  CHECK(page.body.find("name=\"tq-sign-out\" content=\"false\"") != std::string::npos);
  const std::string alices = *access->ProxyCsrf("alice");
  CHECK(page.body.find(alices) != std::string::npos);
  CHECK(*access->ProxyCsrf("bob") != alices);
  HttpRequest post = r;
  post.path = "/api/cancel";
  post.method = "POST";
  post.body = R"({"ids": [1]})";
  CHECK(console.Handle(post).status == 403);
  post.headers["x-csrf-token"] = *access->ProxyCsrf("bob");  // a page bob could read
  CHECK(console.Handle(post).status == 403);
  post.headers["x-csrf-token"] = alices;
  CHECK(console.Handle(post).status == 502);  // past the checks: no tqd at that socket
}

}  // namespace
}  // namespace tq
