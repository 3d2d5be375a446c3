// The store's password never reaches a message (issue 48): RedactConninfo over a table of URIs
// and keyword/value strings, and RedactMessage over libpq's own messages that quote them.
#include "core/store/postgres/redact.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tq {
namespace {

// A conninfo and what RedactConninfo must make of it.
struct RedactCase {
  std::string conninfo;
  std::string redacted;
};

TEST_CASE("RedactConninfo hides each password of a URI or keyword/value conninfo") {
  const std::vector<RedactCase> cases = {
      // URIs without a password are left as they are.
      {"postgresql:///tq?host=/run/postgresql", "postgresql:///tq?host=/run/postgresql"},
      {"postgresql://tq@db/tq", "postgresql://tq@db/tq"},
      {"postgresql://[::1]:5432/tq?user=a@b", "postgresql://[::1]:5432/tq?user=a@b"},
      {"sqlite", "sqlite"},
      {"", ""},
      // user:password@
      {"postgresql://tq:S3CRETPW@db/tq", "postgresql://tq:***@db/tq"},
      {"postgres://tq:S3CRETPW@db:5432/tq", "postgres://tq:***@db:5432/tq"},
      {"postgresql://tq:S3CRETPW@[::1/tq", "postgresql://tq:***@[::1/tq"},
      {"postgresql://tq:S3CRETPW@", "postgresql://tq:***@"},
      {"postgresql://:S3CRETPW@db", "postgresql://:***@db"},
      {"postgresql://tq:pa%40ss@db/tq", "postgresql://tq:***@db/tq"},
      {"postgresql://tq:pa:ss@db/tq", "postgresql://tq:***@db/tq"},
      // An unencoded "/", "?" or "@" in the password hides it all the same.
      {"postgresql://tq:pa/ss@db/tq", "postgresql://tq:***@db/tq"},
      {"postgresql://tq:pa?ss@db/tq", "postgresql://tq:***@db/tq"},
      {"postgresql://tq:p@ss@db/tq", "postgresql://tq:***@db/tq"},
      {"postgresql://tq:S3CRETPW@db/tq?user=a@b", "postgresql://tq:***@db/tq?user=a@b"},
      // ?password= and &password=, the key percent-encoded too (libpq decodes it).
      {"postgresql://db/tq?password=S3CRETPW", "postgresql://db/tq?password=***"},
      {"postgresql://db/tq?sslmode=require&password=S3CRETPW&connect_timeout=5",
       "postgresql://db/tq?sslmode=require&password=***&connect_timeout=5"},
      {"postgresql://db/tq?passw%6Frd=S3CRETPW", "postgresql://db/tq?passw%6Frd=***"},
      {"postgresql://tq:one@db/tq?password=two", "postgresql://tq:***@db/tq?password=***"},
      {"postgresql://db/tq?password", "postgresql://db/tq?password"},
      // keyword/value
      {"host=db dbname=tq", "host=db dbname=tq"},
      {"host=db password=S3CRETPW dbname=tq", "host=db password=*** dbname=tq"},
      {"password = S3CRETPW", "password = ***"},
      {"host=db password='S3 CRET\\'PW' dbname=tq", "host=db password=*** dbname=tq"},
      {"host=db password='S3CRETPW", "host=db password=***"},
      {"password=S3\\ CRETPW user=tq", "password=*** user=tq"},
      {"passwordx=y", "passwordx=y"},
  };
  for (const RedactCase& c : cases) {
    CAPTURE(c.conninfo);
    CHECK(RedactConninfo(c.conninfo) == c.redacted);
  }
}

TEST_CASE("RedactMessage hides the conninfo quoted in libpq's message and any of its passwords") {
  const std::string uri = "postgresql://tq:S3CRETPW@[::1/tq";
  CHECK(RedactMessage("end of string reached when looking for matching \"]\" in IPv6 host "
                      "address in URI: \"" +
                          uri + "\"",
                      uri) ==
        "end of string reached when looking for matching \"]\" in IPv6 host address in URI: "
        "\"postgresql://tq:***@[::1/tq\"");
  // Part of the URI quoted: the password, as written and percent-decoded, is hidden anyway.
  const std::string query = "postgresql://db/tq?password=pa%25ss&x";
  CHECK(RedactMessage("missing key/value separator \"=\" in URI query parameter: \"x\" (of "
                      "password=pa%25ss, pa%ss)",
                      query) ==
        "missing key/value separator \"=\" in URI query parameter: \"x\" (of password=***, ***)");
  // A message without the conninfo or a password is kept as it is.
  CHECK(RedactMessage("connection refused", uri) == "connection refused");
  CHECK(RedactMessage("connection refused", "host=db") == "connection refused");
}

}  // namespace
}  // namespace tq
