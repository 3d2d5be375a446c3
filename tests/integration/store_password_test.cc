// Issue 48: the store's password never reaches a message. A PostgreSQL URI libpq cannot read was
// quoted whole by tqd's start (libpq's message holds it) and passed `tqd --check-config`; now
// both refuse it with exit 78, naming the key and the URI with its password hidden.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr const char* kPassword = "S3CRETPW";

// URIs with the password that libpq refuses to read, each with what its refusal must name.
struct BadUri {
  std::string uri;
  std::string shown;  // the URI as the refusal quotes it
};

const std::vector<BadUri> kBadUris = {
    {"postgresql://tq:S3CRETPW@[::1/tq", "postgresql://tq:***@[::1/tq"},
    {"postgresql://db/tq?password=S3CRETPW&no_such_key=1",
     "postgresql://db/tq?password=***&no_such_key=1"},
    {"postgres://tq:S3CRETPW@db/tq?sslmode", "postgres://tq:***@db/tq?sslmode"},
};

// tqd on a tqd.toml of `store = URI` in a temporary directory, with `args`.
RunResult TqdOnStore(const tq::TempDir& tmp, const std::string& uri,
                     const std::vector<std::string>& args) {
  const std::string dir = tmp.path.string();
  REQUIRE(mkdir((dir + "/jobs.d").c_str(), 0755) == 0);
  WriteFile(dir + "/tqd.toml",
            "store = " + Quoted(uri) + "\njobs_dir = " + Quoted(dir + "/jobs.d") + "\n");
  std::vector<std::string> argv = {BinPath("tqd"), "--socket", dir + "/tq.sock", "--state",
                                   dir + "/state", "--config", dir + "/tqd.toml"};
  argv.insert(argv.end(), args.begin(), args.end());
  Process tqd(argv, {});
  return tqd.Finish();
}

}  // namespace

TEST_CASE("store password: --check-config refuses a URI libpq cannot read, its password hidden") {
  for (const BadUri& bad : kBadUris) {
    CAPTURE(bad.uri);
    tq::TempDir tmp{"store-password"};
    const RunResult r = TqdOnStore(tmp, bad.uri, {"--check-config"});
    INFO(r.out, r.err);
    CHECK(r.exit_code == 78);
    CHECK(r.out.find("configuration ok") == std::string::npos);
    CHECK(r.err.find("tqd.toml: store: \"" + bad.shown + "\"") != std::string::npos);
    CHECK(r.err.find("postgresql://[USER[:PASSWORD]@][HOST][:PORT][/DBNAME]") != std::string::npos);
    CHECK((r.out + r.err).find(kPassword) == std::string::npos);
  }
}

TEST_CASE("store password: tqd started on a URI libpq cannot read stops, logging no password") {
  for (const BadUri& bad : kBadUris) {
    CAPTURE(bad.uri);
    tq::TempDir tmp{"store-password"};
    const RunResult r = TqdOnStore(tmp, bad.uri, {});
    INFO(r.out, r.err);
    CHECK(r.exit_code == 78);  // a configuration error: trying again cannot help
    CHECK(r.err.find(bad.shown) != std::string::npos);
    CHECK((r.out + r.err).find(kPassword) == std::string::npos);
  }
}

TEST_CASE("store password: --check-config takes a URI libpq reads without connecting") {
  tq::TempDir tmp{"store-password"};
  // Nothing listens on port 1: a check that connected would fail.
  const RunResult r = TqdOnStore(tmp, "postgresql://tq:S3CRETPW@127.0.0.1:1/tq?connect_timeout=5",
                                 {"--check-config"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("configuration ok") != std::string::npos);
  CHECK((r.out + r.err).find(kPassword) == std::string::npos);
}
