// Queues changed at run time (pause, resume, concurrency, persisted across a restart of the
// daemon; only queues that exist; delete) and bulk submit (--batch, -0 argv lists, --json-lines).
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <thread>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// The queue named `name` from `tq queue list --json`, or null.
nlohmann::json QueueJson(const TestDaemon& d, const std::string& name) {
  const RunResult r = Tq(d, {"queue", "list", "--json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  for (const auto& q : JsonLines(r.out))
    if (q["name"] == name) return q;
  return nullptr;
}

// A task body counting, under flock, how many tasks of the queue run at once (as in caps_test).
const char* kCounter = R"(
d=$1
exec 9>>"$d/lock"
flock 9
n=$(( $(cat "$d/running") + 1 )); echo $n > "$d/running"
echo $n >> "$d/samples"
flock -u 9
sleep 0.2
flock 9
echo $(( $(cat "$d/running") - 1 )) > "$d/running"
flock -u 9
)";

// The largest number in a samples file, and how many there are.
std::pair<int, int> PeakAndCount(const std::string& path) {
  std::istringstream in(ReadFile(path));
  int peak = 0, count = 0;
  for (int n = 0; in >> n; ++count) peak = std::max(peak, n);
  return {peak, count};
}

std::string Logs(const TestDaemon& d, const std::string& id) {
  const RunResult r = Tq(d, {"logs", id});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return r.out;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// tq queue

TEST_CASE("a paused queue starts nothing until it is resumed") {
  TestDaemon d("[queues.qp]\n");  // named, so it can be paused before its first task
  TQ_LOG_ON_FAILURE(d);
  const RunResult pause = Tq(d, {"queue", "pause", "qp"});
  CHECK_MESSAGE(pause.exit_code == 0, pause.err);
  CHECK(QueueJson(d, "qp")["paused"] == true);
  const std::string held = Submit(d, {"--queue", "qp", "--", "true"});
  // A task of another queue submitted later runs to its end meanwhile.
  const std::string other = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", other}).exit_code == 0);
  CHECK(TaskState(d, held) == "pending");
  CHECK(TaskJson(d, held)["attempts"] == 0);

  const RunResult resume = Tq(d, {"queue", "resume", "qp"});
  CHECK_MESSAGE(resume.exit_code == 0, resume.err);
  CHECK(QueueJson(d, "qp")["paused"] == false);
  CHECK(Tq(d, {"wait", held}).exit_code == 0);
}

TEST_CASE("pausing a queue lets its running task finish") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go";
  const std::string running = Submit(
      d, {"--queue", "qr", "--", "sh", "-c", "while [ ! -e '" + gate + "' ]; do sleep 0.05; done"});
  REQUIRE(WaitState(d, running, "running"));
  REQUIRE(Tq(d, {"queue", "pause", "qr"}).exit_code == 0);
  const std::string next = Submit(d, {"--queue", "qr", "--", "true"});
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", running}).exit_code == 0);
  CHECK(TaskState(d, next) == "pending");
  REQUIRE(Tq(d, {"queue", "resume", "qr"}).exit_code == 0);
  CHECK(Tq(d, {"wait", next}).exit_code == 0);
}

TEST_CASE("tq queue set --concurrency caps a queue as its tasks observe it") {
  TestDaemon d("max_running = 4\n[queues.qc]\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string cdir = d.dir() + "/c";
  REQUIRE(mkdir(cdir.c_str(), 0700) == 0);
  WriteFile(cdir + "/running", "0\n");
  WriteFile(d.dir() + "/counter.sh", kCounter);
  const RunResult set = Tq(d, {"queue", "set", "qc", "--concurrency", "1"});
  CHECK_MESSAGE(set.exit_code == 0, set.err);
  CHECK(QueueJson(d, "qc")["concurrency"] == 1);

  std::vector<std::string> wait = {"wait"};
  for (int i = 0; i < 6; ++i)
    wait.push_back(Submit(d, {"--queue", "qc", "--", "sh", d.dir() + "/counter.sh", cdir}));
  const RunResult r = Tq(d, wait);
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  const auto [peak, count] = PeakAndCount(cdir + "/samples");
  CHECK(count == 6);
  CHECK(peak == 1);
  CHECK(ReadFile(cdir + "/running") == "0\n");

  // 0 returns to the configured value (none for qc).
  CHECK(Tq(d, {"queue", "set", "qc", "--concurrency", "0"}).exit_code == 0);
  CHECK(QueueJson(d, "qc")["concurrency"].is_null());
}

TEST_CASE("queue settings persist across a daemon restart") {
  TestDaemon d("[queues.capped]\nconcurrency = 3\n[queues.qx]\n[queues.qy]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "qx"}).exit_code == 0);
  REQUIRE(Tq(d, {"queue", "set", "qy", "--concurrency", "2"}).exit_code == 0);
  REQUIRE(Tq(d, {"queue", "set", "capped", "--concurrency", "1"}).exit_code == 0);
  const std::string held = Submit(d, {"--queue", "qx", "--", "true"});

  d.Restart();
  const nlohmann::json qx = QueueJson(d, "qx");
  REQUIRE(qx.is_object());
  CHECK(qx["paused"] == true);
  const nlohmann::json qy = QueueJson(d, "qy");
  REQUIRE(qy.is_object());
  CHECK(qy["concurrency"] == 2);
  CHECK(qy["paused"] == false);
  CHECK(QueueJson(d, "capped")["concurrency"] == 1);  // the run-time value over tqd.toml's

  // Still paused after the restart: another task runs, the held one does not.
  const std::string other = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", other}).exit_code == 0);
  CHECK(TaskState(d, held) == "pending");
  REQUIRE(Tq(d, {"queue", "resume", "qx"}).exit_code == 0);
  CHECK(Tq(d, {"wait", held}).exit_code == 0);

  // Clearing the run-time value returns to tqd.toml's, and that survives a restart too.
  REQUIRE(Tq(d, {"queue", "set", "capped", "--concurrency", "0"}).exit_code == 0);
  d.Restart();
  CHECK(QueueJson(d, "capped")["concurrency"] == 3);
  CHECK(QueueJson(d, "qx")["paused"] == false);
}

TEST_CASE("changing a queue is refused to other users") {
  const passwd* pw = getpwnam("nobody");
  if (geteuid() != 0 || pw == nullptr) {
    TQ_SKIP("needs root and a 'nobody' user");
  }
  const RunAs nobody{pw->pw_uid, pw->pw_gid};
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult r = TqAs(d, nobody, {"queue", "pause", "default"});
  CHECK(r.exit_code == 5);
  CHECK(TqAs(d, nobody, {"queue", "set", "default", "--concurrency", "1"}).exit_code == 5);
  CHECK(TqAs(d, nobody, {"queue", "list"}).exit_code == 0);
  const nlohmann::json q = QueueJson(d, "default");  // not listed until used, or not paused
  CHECK((q.is_null() || q["paused"] == false));
  CHECK(TqAs(d, nobody, {"queue", "delete", "default"}).exit_code == 5);
}

TEST_CASE("a typo never makes a queue: only named or used queues change, idle ones delete") {
  TestDaemon d("[queues.named]\n");
  TQ_LOG_ON_FAILURE(d);
  // A name nothing uses is refused, naming it and how queues come to exist.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"queue", "pause", "nosuchq"},
        {"queue", "resume", "nosuchq"},
        {"queue", "set", "nosuchq", "--concurrency", "2"},
        {"queue", "delete", "nosuchq"}}) {
    const RunResult r = Tq(d, args);
    CAPTURE(args[1]);
    CHECK(r.exit_code == 4);
    CHECK(r.err ==
          "tq: queue \"nosuchq\" does not exist: a queue exists once tqd.toml names it, tq "
          "queue add makes it or a task is submitted to it\n");
  }
  CHECK(QueueJson(d, "nosuchq").is_null());
  // The default queue and a named one exist before any task.
  CHECK(Tq(d, {"queue", "pause", "default"}).exit_code == 0);
  CHECK(Tq(d, {"queue", "resume", "default"}).exit_code == 0);
  CHECK(Tq(d, {"queue", "pause", "named"}).exit_code == 0);
  const RunResult named = Tq(d, {"queue", "delete", "named"});
  CHECK(named.exit_code == 2);
  CHECK(named.err.find("tqd.toml") != std::string::npos);
  CHECK(Tq(d, {"queue", "delete", "default"}).exit_code == 2);

  // A queue a task made: changeable, and deletable once nothing in it is pending or running.
  const std::string task = Submit(d, {"--queue", "typo", "--delay", "1h", "--", "true"});
  CHECK(Tq(d, {"queue", "set", "typo", "--concurrency", "2"}).exit_code == 0);
  const RunResult busy = Tq(d, {"queue", "delete", "typo"});
  CHECK(busy.exit_code == 2);
  CHECK(busy.err.find("pending or running") != std::string::npos);
  REQUIRE(Tq(d, {"cancel", task}).exit_code == 0);
  const RunResult del = Tq(d, {"queue", "delete", "typo"});
  CHECK_MESSAGE(del.exit_code == 0, del.err);
  CHECK(QueueJson(d, "typo").is_null());
  CHECK(Tq(d, {"queue", "pause", "typo"}).exit_code == 4);
  CHECK(TaskJson(d, task)["queue"] == "typo");  // the finished task keeps its queue's name

  // Retrying that task runs it in its queue; once nothing in it is pending or running, the
  // queue no longer exists, until a task uses it again.
  REQUIRE(Tq(d, {"retry", task}).exit_code == 0);
  CHECK(Tq(d, {"wait", task}).exit_code == 0);
  CHECK(QueueJson(d, "typo").is_null());
  Submit(d, {"--queue", "typo", "--delay", "1h", "--", "true"});
  CHECK(QueueJson(d, "typo").is_object());
}

TEST_CASE("tq queue add makes a queue with its settings, set changes them, and both persist") {
  TestDaemon d("[queues.named]\n");
  TQ_LOG_ON_FAILURE(d);
  const RunResult add =
      Tq(d, {"queue", "add", "gpu", "--concurrency", "2", "--priority-mix", "strict"});
  CHECK_MESSAGE(add.exit_code == 0, add.err);
  nlohmann::json q = QueueJson(d, "gpu");
  REQUIRE(q.is_object());
  CHECK(q["concurrency"] == 2);
  CHECK(q["priority_mix"] == "strict");
  CHECK(Tq(d, {"queue", "list"}).out.find("strict") != std::string::npos);
  // No task ever used it: it stays, and a submit into it says nothing of a new queue.
  const RunResult submit = Tq(d, {"submit", "-q", "gpu", "--", "true"});
  CHECK(submit.err.empty());
  CHECK(Tq(d, {"wait", "--queue", "gpu"}).exit_code == 0);

  for (const std::string name : {"gpu", "named", "default"}) {
    const RunResult again = Tq(d, {"queue", "add", name});
    CAPTURE(name);
    CHECK(again.exit_code == 2);
    CHECK(again.err.find("exists already (change it with tq queue set)") != std::string::npos);
  }
  const RunResult bad = Tq(d, {"queue", "add", "x", "--priority-mix", "70/30"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--priority-mix") != std::string::npos);
  CHECK(Tq(d, {"queue", "add", "y", "--concurrency", "0"}).exit_code == 2);
  CHECK(QueueJson(d, "x").is_null());
  CHECK(Tq(d, {"queue", "set", "named", "--priority-mix", "strict"}).exit_code == 0);
  CHECK(Tq(d, {"queue", "set", "gpu", "--priority-mix", "80/20"}).exit_code == 0);
  CHECK(Tq(d, {"queue", "set", "gpu"}).exit_code == 2);

  d.Restart();
  CHECK(QueueJson(d, "gpu")["priority_mix"] == "80/20");
  CHECK(QueueJson(d, "gpu")["concurrency"] == 2);
  CHECK(QueueJson(d, "named")["priority_mix"] == "strict");
  CHECK(Tq(d, {"queue", "delete", "gpu"}).exit_code == 0);
  CHECK(QueueJson(d, "gpu").is_null());
}

TEST_CASE("a user makes and changes queues of their own, USER/NAME, and only they use them") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string own = alice.name() + "/builds";
  const RunResult add = TqAs(
      d, alice.run_as(), {"queue", "add", own, "--concurrency", "1", "--priority-mix", "strict"});
  CHECK_MESSAGE(add.exit_code == 0, add.err);
  CHECK(TqAs(d, alice.run_as(), {"queue", "set", own, "--concurrency", "2"}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"queue", "pause", own}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"queue", "resume", own}).exit_code == 0);
  const RunResult listed = TqAs(d, alice.run_as(), {"--json", "queue", "list"});
  CHECK(listed.out.find("\"" + own + "\"") != std::string::npos);
  CHECK(QueueJson(d, own)["concurrency"] == 2);
  const std::string task = SubmitAs(d, alice, {"-q", own, "--", "true"});
  CHECK(Tq(d, {"wait", task}).exit_code == 0);

  // Not bob's: he may neither use nor change it, nor make one in alice's name.
  const RunResult submit = TqAs(d, bob.run_as(), {"submit", "-q", own, "--", "true"});
  CHECK(submit.exit_code == 5);
  CHECK(submit.err.find("is " + alice.name() + "'s own") != std::string::npos);
  const RunResult set = TqAs(d, bob.run_as(), {"queue", "set", own, "--concurrency", "9"});
  CHECK(set.exit_code == 5);
  CHECK(set.err.find("only " + alice.name() + " and the admins may set queue") !=
        std::string::npos);
  CHECK(TqAs(d, bob.run_as(), {"queue", "add", alice.name() + "/mine"}).exit_code == 5);
  CHECK(QueueJson(d, own)["concurrency"] == 2);
  const RunResult other = TqAs(d, bob.run_as(), {"--json", "queue", "list"});
  CHECK(other.out.find(own) == std::string::npos);
  // A plain queue is still for admins to make.
  CHECK(TqAs(d, alice.run_as(), {"queue", "add", "shared"}).exit_code == 5);
  const RunResult bad = Tq(d, {"queue", "add", "no such/x"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("or USER/NAME for a queue of USER's own") != std::string::npos);
  CHECK(TqAs(d, alice.run_as(), {"queue", "delete", own}).exit_code == 0);
}

TEST_CASE("a user's own queues are capped by max_queues, and a change answers with its queue") {
  // Any user could add queues without end, each answer the whole list: 1,000 adds took 42 s at
  // 5,400 queues.
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d("[user_limits]\nmax_queues = 3\n");
  TQ_LOG_ON_FAILURE(d);
  for (int i = 0; i < 3; ++i) {
    const RunResult add = TqAs(d, alice.run_as(),
                               {"--json", "queue", "add", alice.name() + "/q" + std::to_string(i)});
    REQUIRE_MESSAGE(add.exit_code == 0, add.err);
    // Only the queue added, not every queue.
    const std::vector<nlohmann::json> answered = JsonLines(add.out);
    REQUIRE(answered.size() == 1);
    CHECK(answered[0]["name"] == alice.name() + "/q" + std::to_string(i));
  }
  const RunResult over = TqAs(d, alice.run_as(), {"queue", "add", alice.name() + "/q3"});
  CHECK(over.exit_code == 2);
  CHECK_MESSAGE(
      over.err.find("max_queues: user \"" + alice.name() +
                    "\" has 3 queues of their own, and max_queues allows 3") != std::string::npos,
      over.err);
  CHECK(QueueJson(d, alice.name() + "/q3").is_null());
  // An admin may add one for the user; a delete makes room again.
  CHECK(Tq(d, {"queue", "add", alice.name() + "/by-admin"}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"queue", "delete", alice.name() + "/q0"}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"queue", "delete", alice.name() + "/by-admin"}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"queue", "add", alice.name() + "/q3"}).exit_code == 0);
  // A pause answers with that queue as it is now.
  const RunResult paused =
      TqAs(d, alice.run_as(), {"--json", "queue", "pause", alice.name() + "/q3"});
  REQUIRE(JsonLines(paused.out).size() == 1);
  CHECK(JsonLines(paused.out)[0]["paused"] == true);
}

TEST_CASE("a strict queue starts its tasks highest priority first, oldest first within it") {
  TestDaemon d("max_running = 1\n[queues.s]\npriority_mix = \"strict\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate", order = d.dir() + "/order";
  const std::string blocker = Submit(
      d, {"-q", "s", "--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"});
  REQUIRE(WaitState(d, blocker, "running"));
  std::vector<std::string> wait = {"wait", blocker};
  for (const std::string p : {"5", "3", "4", "1", "2", "1"})
    wait.push_back(
        Submit(d, {"-q", "s", "-p", p, "--", "sh", "-c", "echo " + p + " >> " + Quoted(order)}));
  WriteFile(gate, "");
  CHECK(Tq(d, wait).exit_code == 0);
  CHECK(ReadFile(order) == "1\n1\n2\n3\n4\n5\n");
}

// ---------------------------------------------------------------------------------------------
// Bulk submit

TEST_CASE("a submit into a queue nobody made says on stderr that it is new and uncapped") {
  TestDaemon d("[queues.known]\nconcurrency = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const RunResult first = Tq(d, {"submit", "-q", "brand-new", "--delay", "1h", "--", "true"});
  CHECK_MESSAGE(first.exit_code == 0, first.err);
  CHECK(first.err ==
        "tq: queue \"brand-new\" is new: no concurrency of its own caps it, only "
        "max_running (tq queue set brand-new --concurrency N, or [queues.brand-new] "
        "in tqd.toml)\n");
  CHECK(first.out.find_first_not_of("0123456789\n") == std::string::npos);  // just the id
  // Once it exists, or when tqd.toml names it, or for the default queue: nothing said.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-q", "brand-new"}, {"-q", "known"}, {}}) {
    std::vector<std::string> submit = {"submit"};
    submit.insert(submit.end(), args.begin(), args.end());
    submit.insert(submit.end(), {"--delay", "1h", "--", "true"});
    const RunResult r = Tq(d, submit);
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK(r.err.empty());
  }
  // A batch says it once per new queue.
  const RunResult batch =
      Tq(d, {"submit", "--batch", "-q", "batch-new", "--delay", "1h"}, "true\ntrue\n");
  CHECK_MESSAGE(batch.exit_code == 0, batch.err);
  CHECK(batch.err ==
        "tq: queue \"batch-new\" is new: no concurrency of its own caps it, only "
        "max_running (tq queue set batch-new --concurrency N, or [queues.batch-new] "
        "in tqd.toml)\n");
  CHECK(Tq(d, {"submit", "--batch", "-q", "batch-new", "--delay", "1h"}, "true\n").err.empty());
}

TEST_CASE("--batch submits 200 shell lines and prints their ids in input order") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  std::string input;
  for (int i = 0; i < 200; ++i) {
    input += "echo line-" + std::to_string(i) + " | tr a-z A-Z\n";
    if (i == 100) input += "\n   \n";  // blank lines are skipped
  }
  const RunResult r = Tq(d, {"submit", "--batch", "--label", "bulk"}, input);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::vector<std::string> ids = Lines(r.out);
  REQUIRE(ids.size() == 200);
  for (size_t i = 1; i < ids.size(); ++i) CHECK(std::stoll(ids[i]) > std::stoll(ids[i - 1]));

  std::vector<std::string> wait = {"wait"};
  wait.insert(wait.end(), ids.begin(), ids.end());
  const RunResult w = Tq(d, wait);
  CHECK_MESSAGE(w.exit_code == 0, w.err);
  CHECK(ListTasks(d, {"--label", "bulk", "--state", "succeeded"}).size() == 200);
  for (size_t i = 0; i < ids.size(); i += 37) {
    CAPTURE(i);
    CHECK(Logs(d, ids[i]) == "LINE-" + std::to_string(i) + "\n");
  }
  CHECK(Logs(d, ids.back()) == "LINE-199\n");
}

TEST_CASE("--batch -0 keeps arguments with spaces, newlines and odd bytes exactly") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::vector<std::string> first = {"printf",    "[%s]",     "a b",   "c\nd", "  lead",
                                          "tab\there", "\xff\xfe", "$HOME", "'\"*"};
  const std::vector<std::string> second = {"printf", "%s|", "x  y", "\n"};
  std::string input;
  for (const auto& task : {first, second}) {
    for (const auto& arg : task) input += arg + '\0';
    input += '\0';  // an empty argument ends the task
  }
  const RunResult r = Tq(d, {"submit", "--batch", "-0"}, input);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::vector<std::string> ids = Lines(r.out);
  REQUIRE(ids.size() == 2);
  CHECK(Tq(d, {"wait", ids[0], ids[1]}).exit_code == 0);
  CHECK(Logs(d, ids[0]) == "[a b][c\nd][  lead][tab\there][\xff\xfe][$HOME]['\"*]");
  CHECK(Logs(d, ids[1]) == "x  y|\n|");
  const nlohmann::json t = TaskJson(d, ids[0]);
  REQUIRE(t["argv"].size() == first.size());
  CHECK(t["argv"][3] == "c\nd");
  CHECK(t["shell"].is_null());

  // The last task may end at the end of input without its empty argument.
  const RunResult last = Tq(d, {"submit", "--batch", "-0"}, std::string("echo\0tail", 9));
  REQUIRE_MESSAGE(last.exit_code == 0, last.err);
  const std::vector<std::string> one = Lines(last.out);
  REQUIRE(one.size() == 1);
  CHECK(Tq(d, {"wait", one[0]}).exit_code == 0);
  CHECK(Logs(d, one[0]) == "tail\n");

  // Nor does it need its empty argument after the last argument's NUL: it is not dropped.
  const RunResult ended =
      Tq(d, {"submit", "--batch", "-0"}, std::string("true\0\0echo\0end\0", 15));
  REQUIRE_MESSAGE(ended.exit_code == 0, ended.err);
  const std::vector<std::string> two = Lines(ended.out);
  REQUIRE(two.size() == 2);
  CHECK(Tq(d, {"wait", two[1]}).exit_code == 0);
  CHECK(Logs(d, two[1]) == "end\n");
}

TEST_CASE("tq --json submit --batch prints one JSON object per task") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult r = Tq(d, {"--json", "submit", "--batch"}, "true\necho two\n");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::vector<nlohmann::json> lines = JsonLines(r.out);
  REQUIRE(lines.size() == 2);
  for (const auto& line : lines) {
    REQUIRE(line["id"].is_number_integer());
    CHECK(TaskState(d, line["id"].dump()) != "");
  }
}

TEST_CASE("--batch --json-lines applies each line's fields over the options") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string input =
      R"({"argv": ["echo", "one"], "priority": 1, "queue": "jl"})"
      "\n"
      R"({"shell": "echo two", "labels": ["x"]})"
      "\n"
      R"({"argv": ["sh", "-c", "exit 3"], "retries": 1, "backoff": "fixed", "backoff_base_ms": 50, "jitter": false})"
      "\n";
  const RunResult r =
      Tq(d, {"submit", "--batch", "--json-lines", "--priority", "5", "--queue", "base"}, input);
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::vector<std::string> ids = Lines(r.out);
  REQUIRE(ids.size() == 3);
  CHECK(Tq(d, {"wait", ids[0], ids[1]}).exit_code == 0);
  CHECK(Tq(d, {"wait", ids[2]}).exit_code == 3);

  const nlohmann::json one = TaskJson(d, ids[0]);
  CHECK(one["priority"] == 1);
  CHECK(one["queue"] == "jl");
  CHECK(Logs(d, ids[0]) == "one\n");
  const nlohmann::json two = TaskJson(d, ids[1]);
  CHECK(two["priority"] == 5);  // from the options
  CHECK(two["queue"] == "base");
  CHECK(two["labels"] == nlohmann::json::array({"x"}));
  CHECK(two["shell"] == "echo two");
  CHECK(Logs(d, ids[1]) == "two\n");
  const nlohmann::json three = TaskJson(d, ids[2]);
  CHECK(three["retry"]["retries"] == 1);
  CHECK(three["attempt_log"].size() == 2);
}

TEST_CASE("a bad line in a batch is reported with its number and nothing is submitted") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string existing = Submit(d, {"--", "true"});
  const size_t before = ListTasks(d).size();

  const RunResult bad_priority =
      Tq(d, {"submit", "--batch", "--json-lines"},
         "{\"argv\": [\"true\"]}\n{\"shell\": \"true\"}\n{\"shell\": \"true\", \"priority\": 9}\n"
         "{\"argv\": [\"true\"]}\n");
  CHECK(bad_priority.exit_code == 2);
  CHECK(bad_priority.out == "");
  CHECK_MESSAGE(bad_priority.err.find("line 3") != std::string::npos, bad_priority.err);
  CHECK_MESSAGE(bad_priority.err.find("priority") != std::string::npos, bad_priority.err);

  const RunResult no_command =
      Tq(d, {"submit", "--batch", "--json-lines"}, "{\"argv\": [\"true\"]}\n\n{\"priority\": 9}\n");
  CHECK(no_command.exit_code == 2);
  CHECK(no_command.out == "");
  CHECK_MESSAGE(no_command.err.find("line 3") != std::string::npos, no_command.err);

  const RunResult not_json =
      Tq(d, {"submit", "--batch", "--json-lines"}, "{\"argv\": [\"true\"]}\nnot json\n");
  CHECK(not_json.exit_code == 2);
  CHECK(not_json.out == "");
  CHECK_MESSAGE(not_json.err.find("line 2") != std::string::npos, not_json.err);

  // A field a submit does not have is refused (as tqd.toml refuses unknown keys), naming it.
  const RunResult unknown = Tq(d, {"submit", "--batch", "--json-lines"},
                               "{\"argv\": [\"true\"]}\n{\"argv\": [\"true\"], \"prio\": 1}\n");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.out == "");
  CHECK_MESSAGE(unknown.err.find("line 2") != std::string::npos, unknown.err);
  CHECK_MESSAGE(unknown.err.find("\"prio\"") != std::string::npos, unknown.err);

  CHECK(ListTasks(d).size() == before);
  CHECK(TaskState(d, existing) != "");
}

TEST_CASE("a batch line with an unknown --after id is refused naming its line") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string existing = Submit(d, {"--", "true"});
  const size_t before = ListTasks(d).size();
  const RunResult r = Tq(
      d, {"submit", "--batch", "--json-lines"},
      "{\"argv\": [\"true\"]}\n\n{\"argv\": [\"true\"], \"after\": [" + existing + ", 999999]}\n");
  CHECK(r.exit_code == 4);
  CHECK(r.out == "");
  CHECK_MESSAGE(r.err.find("line 3") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("999999") != std::string::npos, r.err);
  CHECK(ListTasks(d).size() == before);
}

TEST_CASE("a batch larger than one transaction is still all or nothing") {
  TestDaemon d("[queues.big]\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "big"}).exit_code == 0);  // nothing needs to run
  const std::string existing = Submit(d, {"--queue", "big", "--", "true"});
  constexpr int kLines = 12001;  // three requests of up to 5000 tasks
  auto batch = [&](const std::string& last_after) {
    std::string input;
    for (int i = 1; i < kLines; ++i) input += "{\"argv\": [\"true\"]}\n";
    return input + "{\"argv\": [\"true\"], \"after\": [" + last_after + "]}\n";
  };
  const RunResult bad =
      Tq(d, {"submit", "--batch", "--json-lines", "--queue", "big"}, batch("999999"));
  CHECK(bad.exit_code == 4);
  CHECK(bad.out == "");
  CHECK_MESSAGE(bad.err.find("line " + std::to_string(kLines)) != std::string::npos, bad.err);
  CHECK(ListTasks(d).size() == 1);

  const RunResult good =
      Tq(d, {"submit", "--batch", "--json-lines", "--queue", "big"}, batch(existing));
  CHECK_MESSAGE(good.exit_code == 0, good.err);
  CHECK(Lines(good.out).size() == static_cast<size_t>(kLines));
  CHECK(ListTasks(d, {"--queue", "big"}).size() == static_cast<size_t>(kLines) + 1);
}

TEST_CASE("a batch whose connection is lost before the answer says what may have been stored") {
  // A socket where "tqd" reads the request and goes away without an answer, as in a crash.
  tq::TempDir dir("batch-cut");
  const std::string path = dir.File("tq.sock");
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(listener >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof addr.sun_path);
  std::copy(path.begin(), path.end(), addr.sun_path);
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(listen(listener, 1) == 0);
  std::thread gone([listener] {
    const int conn = accept(listener, nullptr, nullptr);
    char buf[4096];
    if (conn >= 0 && read(conn, buf, sizeof buf) > 0) close(conn);
  });
  const RunResult r = RunTq(path, {"submit", "--batch"}, {}, "true\ntrue\ntrue\n");
  gone.join();
  close(listener);
  CHECK(r.exit_code == 6);
  CHECK(r.out.empty());
  CHECK_MESSAGE(r.err.starts_with("tq: lost the connection to tqd at " + path), r.err);
  CHECK_MESSAGE(r.err.ends_with("; the tasks from line 1 to line 3 are stored all together or "
                                "not at all (tq list shows which)\n"),
                r.err);
}
