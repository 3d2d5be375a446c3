// The secrets of tq web: tokens made and read from a file, the session cookie, the CSRF token,
// and the routing that lets nothing but /login answer without the session.
#include "cli/web/web_access.h"

#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>

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

TEST_CASE("--token-file: the first line of a private file, within the token's spelling") {
  TempDir dir("web-token");
  struct Case {
    const char* text;
    mode_t mode;
    const char* refusal;  // part of the message, or nullptr when accepted
  };
  const Case cases[] = {
      {"abcdefghijklmnop\n", 0600, nullptr},
      {"abcdefghijklmnop\r\nsecond line\n", 0400, nullptr},
      {"abcdefghijklmnop", 0644, "others may read"},
      {"abcdefghijklmnop", 0660, "others may read"},
      {"short\n", 0600, "16 to 256"},
      {"has space inside it\n", 0600, "16 to 256"},
      {"\n", 0600, "16 to 256"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const std::string path = dir.File("token");
    std::remove(path.c_str());
    WriteWithMode(path, c.text, c.mode);
    Result<std::string> token = WebAccess::TokenFromFile(path);
    if (c.refusal == nullptr) {
      REQUIRE(token.ok());
      CHECK(*token == "abcdefghijklmnop");
    } else {
      REQUIRE_FALSE(token.ok());
      CHECK(token.status().field() == "--token-file");
      CHECK(token.status().message().find(c.refusal) != std::string::npos);
    }
  }
  CHECK_FALSE(WebAccess::TokenFromFile(dir.File("missing")).ok());
  CHECK_FALSE(WebAccess::TokenFromFile(dir.path.string()).ok());  // a directory
}

TEST_CASE(
    "the console: /login alone answers without the session, and changes need the CSRF token") {
  Result<WebAccess> access = WebAccess::Make("logintoken-0123456789", 8377);
  REQUIRE(access.ok());
  const std::string csrf = access->csrf();
  // No tqd at this socket: calls that pass the checks answer 502.
  WebConsole console(*access, WebApiContext{"/nonexistent/tq.sock", false, std::nullopt});

  CHECK(console.Handle(Get("/")).status == 401);
  CHECK(console.Handle(Get("/api/list")).status == 401);
  CHECK(console.Handle(Get("/api/list")).content_type == "application/json");
  CHECK(console.Handle(Get("/assets/console.css")).status == 401);
  CHECK(console.Handle(Get("/login")).status == 403);
  HttpRequest login = Get("/login");
  login.query["token"] = "logintoken-012345678";
  CHECK(console.Handle(login).status == 403);
  login.query["token"] = "logintoken-0123456789";
  const HttpResponse signed_in = console.Handle(login);
  REQUIRE(signed_in.status == 303);
  std::string cookie;
  for (const auto& [name, value] : signed_in.headers)
    if (name == "Set-Cookie") cookie = value;
  REQUIRE(cookie.rfind("tq_session_8377=", 0) == 0);
  const std::string session = cookie.substr(16, cookie.find(';') - 16);
  CHECK(cookie.find("HttpOnly") != std::string::npos);
  CHECK(cookie.find("SameSite=Strict") != std::string::npos);

  const auto with_session = [&](HttpRequest r) {
    r.cookies["tq_session_8377"] = session;
    return r;
  };
  const HttpResponse page = console.Handle(with_session(Get("/tasks/12")));
  CHECK(page.status == 200);
  CHECK(page.body.find(csrf) != std::string::npos);
  CHECK(page.body.find("{{") == std::string::npos);
  CHECK(console.Handle(with_session(Get("/assets/console.css"))).content_type ==
        "text/css; charset=utf-8");
  CHECK(console.Handle(with_session(Get("/assets/nothing.js"))).status == 404);
  CHECK(console.Handle(with_session(Get("/api/list"))).status == 502);  // tqd unreachable

  HttpRequest post = with_session(Get("/api/cancel"));
  post.method = "POST";
  post.body = R"({"ids": [1]})";
  CHECK(console.Handle(post).status == 403);
  post.headers["x-csrf-token"] = csrf;
  CHECK(console.Handle(post).status == 502);  // past the checks
  post.body = R"({"ids": "one"})";
  CHECK(console.Handle(post).status == 400);  // tqd's decoder refuses it before sending

  WebConsole read_only(*access, WebApiContext{"/nonexistent/tq.sock", true, std::nullopt});
  post.body = R"({"ids": [1]})";
  CHECK(read_only.Handle(post).status == 403);
  CHECK(read_only.Handle(with_session(Get("/"))).body.find("content=\"true\"") !=
        std::string::npos);
}

TEST_CASE("behind a proxy: the user is the header's, no login, and changes still need CSRF") {
  CHECK_FALSE(WebAccess::BehindProxy("").ok());
  CHECK_FALSE(WebAccess::BehindProxy("X User").ok());
  CHECK(WebAccess::BehindProxy("X-Remote-User:").status().message() ==
        "--trust-user-header: \"X-Remote-User:\" is not a header name (1 to 64 of A-Z a-z 0-9 -)");
  Result<WebAccess> access = WebAccess::BehindProxy("X-Remote-User");
  REQUIRE(access.ok());
  CHECK(access->BehindProxy());
  HttpRequest r = Get("/");
  CHECK_FALSE(access->ProxyUser(r).has_value());
  for (const char* bad : {"", "no body", "../root", "a\nb"}) {
    r.headers["x-remote-user"] = bad;
    CHECK_FALSE(access->ProxyUser(r).has_value());
  }
  r.headers["x-remote-user"] = "alice";
  CHECK(access->ProxyUser(r) == "alice");
  CHECK_FALSE(access->LoginMatches(""));
  CHECK_FALSE(access->SignedIn(r));

  WebConsole console(*access, WebApiContext{"/nonexistent/tq.sock", false, std::nullopt});
  CHECK(console.Handle(Get("/")).status == 401);
  CHECK(console.Handle(Get("/api/list")).status == 401);
  HttpRequest login = Get("/login");
  login.query["token"] = "";
  login.headers["x-remote-user"] = "alice";
  CHECK(console.Handle(login).status == 404);
  CHECK(console.Handle(r).status == 200);
  CHECK(console.Handle(r).body.find(access->csrf()) != std::string::npos);
  HttpRequest post = r;
  post.path = "/api/cancel";
  post.method = "POST";
  post.body = R"({"ids": [1]})";
  CHECK(console.Handle(post).status == 403);
  post.headers["x-csrf-token"] = access->csrf();
  CHECK(console.Handle(post).status == 502);  // past the checks: no tqd at that socket
}

}  // namespace
}  // namespace tq
