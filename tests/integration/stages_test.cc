// Stages through the real tqd (SPEC 13): each stage is its own attempt with its own retries, a
// failed task resumes at the stage that failed, a restart between or during stages runs every
// stage once, a job runs stages on schedule, and every stage shares a private context directory.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <string>
#include <vector>

#include "support/jobs.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Writes the stages file `name` in the daemon's directory and returns its path.
std::string StagesFile(const TestDaemon& d, const std::string& name, const std::string& toml) {
  const std::string path = d.dir() + "/" + name;
  WriteFile(path, toml);
  return path;
}

// The stages of task `id` as its JSON carries them: name -> {state, attempts}.
std::vector<nlohmann::json> Stages(const TestDaemon& d, const std::string& id) {
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["stages"].is_array());
  return t["stages"].get<std::vector<nlohmann::json>>();
}

// A shell command appending `word` to the file `log`.
std::string AppendTo(const std::string& log, const std::string& word) {
  return "echo " + word + " >> " + Quoted(log);
}

// The file the stages of a test append to, as one line of words.
std::string Words(const std::string& log) {
  std::string out;
  for (const std::string& line : FileLines(log)) out += (out.empty() ? "" : " ") + line;
  return out;
}

}  // namespace

TEST_CASE("three stages: the second fails twice and succeeds under its own retries") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log", count = d.dir() + "/count";
  const std::string file = StagesFile(
      d, "stages.toml",
      "[[stages]]\nname = \"one\"\ncommand = '''" + AppendTo(log, "one") +
          "; echo \"PASSED=from one\" >> \"$TQ_CONTEXT/env\"; echo made > "
          "\"$TQ_CONTEXT/file\"'''\n"
          "[[stages]]\nname = \"two\"\nretries = 2\n"
          "backoff = { kind = \"fixed\", base = \"0s\", jitter = false }\n"
          "command = '''" +
          AppendTo(log, "two") + "; n=$(cat " + Quoted(count) +
          " 2>/dev/null || echo 0); n=$((n+1)); echo $n > " + Quoted(count) +
          "; [ $n -ge 3 ]'''\n"
          "[[stages]]\nname = \"three\"\ncommand = '''" +
          AppendTo(log, "three") +
          "; echo \"$TQ_STAGE $TQ_STAGE_INDEX $PASSED $(cat \"$TQ_CONTEXT/file\")\"'''\n");
  const std::string id = Submit(d, {"--stages", file});
  const RunResult wait = Tq(d, {"wait", id});
  INFO(Tq(d, {"status", id}).out);
  CHECK(wait.exit_code == 0);
  CHECK(Words(log) == "one two two two three");
  const std::vector<nlohmann::json> stages = Stages(d, id);
  REQUIRE(stages.size() == 3);
  for (const nlohmann::json& s : stages) CHECK(s["state"] == "succeeded");
  CHECK(stages[0]["attempts"] == 1);
  CHECK(stages[1]["attempts"] == 3);
  CHECK(stages[2]["attempts"] == 1);
  const RunResult logs = Tq(d, {"logs", id, "--stage", "three"});
  CHECK(logs.out == "three 2 from one made\n");
  const RunResult status = Tq(d, {"status", id});
  CHECK_MESSAGE(status.out.find("STAGE") != std::string::npos, status.out);
}

TEST_CASE("a task failed at its third stage resumes there: the first two never run again") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log", gate = d.dir() + "/gate";
  const std::string id =
      Submit(d, {"--stage", "one", "--", "sh", "-c", AppendTo(log, "one"), "--stage", "two", "--",
                 "sh", "-c", AppendTo(log, "two"), "--stage", "three", "--", "sh", "-c",
                 AppendTo(log, "three") + "; [ -e " + Quoted(gate) + " ] || exit 3"});
  const RunResult failed = Tq(d, {"wait", id});
  CHECK(failed.exit_code == 3);  // the failed stage's own exit code
  CHECK(TaskState(d, id) == "failed");
  std::vector<nlohmann::json> stages = Stages(d, id);
  CHECK(stages[0]["state"] == "succeeded");
  CHECK(stages[1]["state"] == "succeeded");
  CHECK(stages[2]["state"] == "failed");
  CHECK(stages[2]["exit_code"] == 3);
  const RunResult list = Tq(d, {"list"});
  CHECK_MESSAGE(list.out.find("3/3 three") != std::string::npos, list.out);

  WriteFile(gate, "");
  REQUIRE(Tq(d, {"retry", id}).exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Words(log) == "one two three three");

  // --from NAME runs again from that stage; --from-start from the first.
  const std::string again =
      Submit(d, {"--stage", "a", "--", "false", "--stage", "b", "--", "true"});
  CHECK(Tq(d, {"wait", again}).exit_code == 1);
  const RunResult later = Tq(d, {"retry", again, "--from", "b"});
  CHECK(later.exit_code == 2);
  CHECK_MESSAGE(
      later.err.find("a stage that has not succeeded is never skipped") != std::string::npos,
      later.err);
  const RunResult unknown = Tq(d, {"retry", id, "--from", "nope"});
  CHECK(unknown.exit_code == 2);
  CHECK_MESSAGE(unknown.err.find("has no stage") != std::string::npos, unknown.err);
  CHECK_MESSAGE(unknown.err.rfind("tq: --from: ", 0) == 0, unknown.err);  // the flag typed
  WriteFile(log, "");
  const std::string third =
      Submit(d, {"--stage", "one", "--", "sh", "-c", AppendTo(log, "one"), "--stage", "two", "--",
                 "sh", "-c", AppendTo(log, "two"), "--stage", "three", "--", "sh", "-c",
                 AppendTo(log, "three") + "; exit 4"});
  CHECK(Tq(d, {"wait", third}).exit_code == 4);
  REQUIRE(Tq(d, {"retry", third, "--from", "two"}).exit_code == 0);
  CHECK(Tq(d, {"wait", third}).exit_code == 4);
  REQUIRE(Tq(d, {"retry", third, "--from-start"}).exit_code == 0);
  CHECK(Tq(d, {"wait", third}).exit_code == 4);
  CHECK(Words(log) == "one two three two three one two three");
}

TEST_CASE("kill -9 of tqd during a stage and between stages: every stage runs exactly once") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log", gate1 = d.dir() + "/gate1", gate2 = d.dir() + "/gate2";
  const auto gated = [&](const std::string& word, const std::string& gate) {
    return AppendTo(log, word) + "; while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done";
  };
  const std::string id = Submit(
      d, {"--stage", "one", "--", "sh", "-c", gated("one", gate1), "--stage", "two", "--", "sh",
          "-c", gated("two", gate2), "--stage", "three", "--", "sh", "-c", AppendTo(log, "three")});
  // Between stages: the queue is paused while the first stage runs, so its end leaves the task
  // pending at the second.
  REQUIRE(WaitFor([&] { return Words(log) == "one"; }));
  REQUIRE(Tq(d, {"queue", "pause", "default"}).exit_code == 0);
  WriteFile(gate1, "");
  REQUIRE(WaitFor([&] {
    const nlohmann::json t = TaskJson(d, id);
    return t["state"] == "pending" && t["stage"]["name"] == "two";
  }));
  d.Kill9();
  d.Restart();
  CHECK(TaskJson(d, id)["stage"]["name"] == "two");
  REQUIRE(Tq(d, {"queue", "resume", "default"}).exit_code == 0);
  // During a stage: tqd dies while the second runs, and its end is learned after the restart.
  REQUIRE(WaitFor([&] { return Words(log) == "one two"; }));
  REQUIRE(WaitState(d, id, "running"));
  d.Kill9();
  WriteFile(gate2, "");
  d.Restart();
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Words(log) == "one two three");
  for (const nlohmann::json& s : Stages(d, id)) CHECK(s["attempts"] == 1);
}

TEST_CASE("a job with stages fires on schedule and runs them in order") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log";
  d.WriteJobFile("nightly.toml",
                 "[[job]]\nname = \"nightly\"\nschedule = \"* * * * * *\"\n"
                 "stages = [{ name = \"dump\", command = '''echo dump >> " +
                     Quoted(log) + "''' }, { name = \"upload\", command = '''echo upload >> " +
                     Quoted(log) + "''', retries = 2 }]\n");
  Reload(d);
  REQUIRE(WaitFor([&] {
    for (const nlohmann::json& t : JobRuns(d, "nightly"))
      if (t["state"] == "succeeded") return true;
    return false;
  }));
  REQUIRE(Tq(d, {"jobs", "disable", "nightly"}).exit_code == 0);
  const std::vector<std::string> lines = FileLines(log);
  REQUIRE(lines.size() >= 2);
  CHECK(lines[0] == "dump");
  CHECK(lines[1] == "upload");
  const nlohmann::json run = JobRuns(d, "nightly").back();
  const std::vector<nlohmann::json> stages = Stages(d, run["id"].dump());
  REQUIRE(stages.size() == 2);
  CHECK(stages[1]["retries"] == 2);
}

TEST_CASE("tq hold of a running task holds its next stage, and at its last stage is refused") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log", gate = d.dir() + "/gate";
  const std::string id = Submit(
      d, {"--stage", "one", "--", "sh", "-c",
          AppendTo(log, "one") + "; while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done",
          "--stage", "two", "--", "sh", "-c", AppendTo(log, "two")});
  REQUIRE(WaitFor([&] { return Words(log) == "one"; }));
  const RunResult held = Tq(d, {"hold", id});
  REQUIRE_MESSAGE(held.exit_code == 0, held.err);
  CHECK(Tq(d, {"status", id}).out.find("next stage") != std::string::npos);
  WriteFile(gate, "");
  REQUIRE(WaitFor([&] {
    const nlohmann::json t = TaskJson(d, id);
    return t["state"] == "pending" && t["stage"]["name"] == "two" && t["held"] == true;
  }));
  CHECK(Words(log) == "one");
  REQUIRE(Tq(d, {"release", id}).exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Words(log) == "one two");
  // The last stage has no next one to hold.
  const std::string last =
      Submit(d, {"--stage", "only", "--", "sh", "-c",
                 "while [ ! -e " + Quoted(gate + "2") + " ]; do sleep 0.05; done"});
  REQUIRE(WaitState(d, last, "running"));
  const RunResult refused = Tq(d, {"hold", last});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("at its last stage") != std::string::npos);
  WriteFile(gate + "2", "");
  CHECK(Tq(d, {"wait", last}).exit_code == 0);
}

TEST_CASE("a job run between its stages is still in flight: overlap = queue waits for its end") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log", gate = d.dir() + "/gate", gate2 = d.dir() + "/gate2";
  const auto gated = [&](const std::string& word, const std::string& g) {
    return "echo " + word + " >> " + Quoted(log) + "; while [ ! -e " + Quoted(g) +
           " ]; do sleep 0.05; done";
  };
  d.WriteJobFile("nightly.toml",
                 "[[job]]\nname = \"nightly\"\nschedule = \"* * * * * *\"\noverlap = \"queue\"\n"
                 "stages = [{ name = \"dump\", command = '''" +
                     gated("dump", gate) + "''' }, { name = \"upload\", command = '''" +
                     gated("upload", gate2) + "''' }]\n");
  Reload(d);
  // The first run holds its dump open until a second run is queued behind it.
  REQUIRE(WaitFor([&] { return Words(log) == "dump" && JobRuns(d, "nightly").size() == 2; }));
  REQUIRE(Tq(d, {"jobs", "disable", "nightly"}).exit_code == 0);
  std::vector<long long> ids;
  for (const nlohmann::json& t : JobRuns(d, "nightly")) ids.push_back(t["id"].get<long long>());
  std::sort(ids.begin(), ids.end());
  const std::string first = std::to_string(ids[0]), second = std::to_string(ids[1]);
  // Between the first run's stages (held there) and during its upload the queued run does not
  // start.
  REQUIRE(Tq(d, {"hold", first}).exit_code == 0);
  WriteFile(gate, "");
  REQUIRE(WaitFor([&] { return TaskJson(d, first)["state"] == "pending"; }));
  CHECK(TaskJson(d, second)["state"] == "pending");
  REQUIRE(Tq(d, {"release", first}).exit_code == 0);
  REQUIRE(WaitFor([&] { return Words(log) == "dump upload"; }));
  CHECK(TaskJson(d, second)["state"] == "pending");
  WriteFile(gate2, "");
  CHECK(Tq(d, {"wait", first, second}).exit_code == 0);
  CHECK(Words(log) == "dump upload dump upload");
}

TEST_CASE("kill -9 of the shim during a stage: that stage is retried by its policy, no other") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string log = d.dir() + "/log", once = d.dir() + "/once";
  const std::string id = Submit(d, {"--retries",
                                    "1",
                                    "--backoff",
                                    "fixed",
                                    "--backoff-base",
                                    "0s",
                                    "--no-jitter",
                                    "--stage",
                                    "one",
                                    "--",
                                    "sh",
                                    "-c",
                                    AppendTo(log, "one"),
                                    "--stage",
                                    "two",
                                    "--",
                                    "sh",
                                    "-c",
                                    AppendTo(log, "two") + "; [ -e " + Quoted(once) +
                                        " ] && exit 0; touch " + Quoted(once) + "; sleep 600",
                                    "--stage",
                                    "three",
                                    "--",
                                    "sh",
                                    "-c",
                                    AppendTo(log, "three")});
  // The kill comes once the stage has marked its first run, or the retry would run it as a first.
  REQUIRE(WaitFor([&] { return Words(log) == "one two" && access(once.c_str(), F_OK) == 0; }));
  long long shim = -1;
  REQUIRE(WaitFor([&] { return (shim = RecordField(RecordPath(d, id, 2), "shim_pid")) > 0; }));
  REQUIRE(kill(static_cast<pid_t>(shim), SIGKILL) == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Words(log) == "one two two three");
  const std::vector<nlohmann::json> stages = Stages(d, id);
  CHECK(stages[0]["attempts"] == 1);
  CHECK(stages[1]["attempts"] == 2);
  CHECK(TaskJson(d, id)["attempt_log"][1]["reason"] == "lost");
}

TEST_CASE(
    "a stage that removes its context gets a new one, and one replaced by a link is refused") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string target = d.dir() + "/target";
  REQUIRE(mkdir(target.c_str(), 0700) == 0);
  WriteFile(target + "/keep", "keep\n");
  const std::string fresh = Submit(
      d, {"--stage", "wipe", "--shell", "touch \"$TQ_CONTEXT/a\" && rm -rf \"$TQ_CONTEXT\"",
          "--stage", "after", "--shell", "[ -d \"$TQ_CONTEXT\" ] && [ ! -e \"$TQ_CONTEXT/a\" ]"});
  CHECK(Tq(d, {"wait", fresh}).exit_code == 0);
  // A link where the context was is never followed: the next stage does not start, the link's
  // target is left alone, and tq clean removes the link only.
  const std::string linked =
      Submit(d, {"--stage", "swap", "--shell",
                 "rmdir \"$TQ_CONTEXT\" && ln -s " + Quoted(target) + " \"$TQ_CONTEXT\"", "--stage",
                 "write", "--shell", "echo x > \"$TQ_CONTEXT/x\""});
  CHECK(Tq(d, {"wait", linked}).exit_code != 0);
  const nlohmann::json t = TaskJson(d, linked);
  CHECK(t["stage"]["name"] == "write");
  CHECK(t["attempt_log"][1]["reason"] == "spawn-failed");
  CHECK(t["attempt_log"][1]["detail"].get<std::string>().find("symbolic link") !=
        std::string::npos);
  REQUIRE(Tq(d, {"clean", linked}).exit_code == 0);
  struct stat st {};
  const std::string contexts = d.state_dir() + "/contexts/u" + std::to_string(geteuid());
  CHECK(WaitFor([&] { return lstat((contexts + "/" + linked).c_str(), &st) != 0; }));
  CHECK(FileLines(target + "/keep") == std::vector<std::string>{"keep"});
  CHECK(access((target + "/x").c_str(), F_OK) != 0);
}

TEST_CASE("the context directory is the task user's, 0700, and goes with the task") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);  // its user reaches the state directory through it
  const std::string id =
      SubmitAs(d, alice,
               {"--stage", "look", "--", "sh", "-c",
                "stat -c '%U %a' \"$TQ_CONTEXT\"; echo secret > \"$TQ_CONTEXT/x\"", "--stage",
                "again", "--", "sh", "-c", "cat \"$TQ_CONTEXT/x\"; echo \"$TQ_CONTEXT\""});
  const RunResult wait = Tq(d, {"wait", id});
  INFO(Tq(d, {"status", id}).out);
  REQUIRE(wait.exit_code == 0);
  CHECK(Tq(d, {"logs", id, "--stage", "look"}).out == alice.name() + " 700\n");
  const std::string second = Tq(d, {"logs", id, "--stage", "again"}).out;
  CHECK(second.substr(0, second.find('\n')) == "secret");
  const std::string context =
      second.substr(second.find('\n') + 1, second.size() - second.find('\n') - 2);
  struct stat st {};
  REQUIRE(stat(context.c_str(), &st) == 0);
  CHECK(st.st_uid == alice.uid());
  CHECK((st.st_mode & 07777) == 0700);
  REQUIRE(Tq(d, {"clean", id}).exit_code == 0);
  CHECK(WaitFor([&] { return stat(context.c_str(), &st) != 0; }));
}

TEST_CASE(
    "another account cannot tell which tasks have contexts, and the owner's stages share one") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, mallory;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);  // its users reach the state directory through it
  const std::string id =
      SubmitAs(d, alice,
               {"--stage", "one", "--shell", "echo PASSED=from-one >> \"$TQ_CONTEXT/env\"",
                "--stage", "two", "--shell", "echo \"$PASSED $TQ_CONTEXT\""});
  const RunResult wait = Tq(d, {"wait", id});
  INFO(Tq(d, {"status", id}).out);
  REQUIRE(wait.exit_code == 0);
  const std::string contexts = d.state_dir() + "/contexts";
  const std::string theirs = contexts + "/u" + std::to_string(alice.uid());
  CHECK(Tq(d, {"logs", id, "--stage", "two"}).out == "from-one " + theirs + "/" + id + "\n");
  // `stat -c %u PATH` run as `who`.
  const auto stat_as = [](const TempUser& who, const std::string& path) {
    return Process({"/usr/bin/stat", "-c", "%u", path}, {}, "", who.run_as()).Finish();
  };
  const RunResult own = stat_as(alice, theirs + "/" + id);
  CHECK(own.exit_code == 0);
  CHECK(own.out == std::to_string(alice.uid()) + "\n");
  for (const std::string& path : {theirs + "/" + id, theirs + "/env", contexts + "/" + id}) {
    CAPTURE(path);
    const RunResult other = stat_as(mallory, path);
    CHECK(other.exit_code != 0);
    CHECK(other.out.empty());
    const bool refused = other.err.find("Permission denied") != std::string::npos ||
                         other.err.find("No such file") != std::string::npos;
    CHECK_MESSAGE(refused, other.err);
  }
  const RunResult hidden = stat_as(mallory, theirs + "/" + id);
  CHECK_MESSAGE(hidden.err.find("Permission denied") != std::string::npos, hidden.err);
  const RunResult list = Process({"/bin/ls", theirs, contexts}, {}, "", mallory.run_as()).Finish();
  CHECK(list.exit_code != 0);
  CHECK(list.out.empty());
}

TEST_CASE("a context an earlier tqd left at contexts/ID moves for the task's next stage") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string id = Submit(d, {"--stage", "one", "--shell",
                                    "echo PASSED=kept >> \"$TQ_CONTEXT/env\"; while [ ! -e " +
                                        Quoted(gate) + " ]; do sleep 0.05; done",
                                    "--stage", "two", "--shell", "echo \"$PASSED $TQ_CONTEXT\""});
  REQUIRE(WaitState(d, id, "running"));
  REQUIRE(Tq(d, {"queue", "pause", "default"}).exit_code == 0);
  WriteFile(gate, "");
  REQUIRE(WaitFor([&] {
    const nlohmann::json t = TaskJson(d, id);
    return t["state"] == "pending" && t["stage"]["name"] == "two";
  }));
  d.Stop();
  // As an earlier tqd kept it: in contexts/ itself.
  const std::string contexts = d.state_dir() + "/contexts";
  const std::string now = contexts + "/u" + std::to_string(geteuid()) + "/" + id;
  REQUIRE(rename(now.c_str(), (contexts + "/" + id).c_str()) == 0);
  d.Start();
  d.WaitReady();
  REQUIRE(Tq(d, {"queue", "resume", "default"}).exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id, "--stage", "two"}).out == "kept " + now + "\n");
  struct stat st {};
  CHECK(lstat((contexts + "/" + id).c_str(), &st) != 0);
  REQUIRE(Tq(d, {"clean", id}).exit_code == 0);
  CHECK(WaitFor([&] { return lstat(now.c_str(), &st) != 0; }));
}

TEST_CASE("lines of $TQ_CONTEXT/env not passed on are named in the next stage's status") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id =
      Submit(d, {"--stage", "one", "--shell",
                 "printf 'GOOD=1\\n1X=2\\nLD_PRELOAD=/x.so\\nno equals\\n' > \"$TQ_CONTEXT/env\"",
                 "--stage", "two", "--shell", "echo \"$GOOD\""});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(Tq(d, {"logs", id, "--stage", "two"}).out == "1\n");
  const nlohmann::json t = TaskJson(d, id);
  REQUIRE(t["attempt_log"].size() == 2);
  CHECK(t["attempt_log"][0]["detail"].is_null());
  CHECK(t["attempt_log"][1]["detail"] ==
        "not passed on from $TQ_CONTEXT/env: line 2: \"1X\" is not a variable name; line 4: no "
        "'=' (NAME=VALUE expected); LD_PRELOAD steers loaders or shells");
  const std::string status = Tq(d, {"status", id}).out;
  CHECK_MESSAGE(status.find("attempt 2: ") != std::string::npos, status);
  CHECK(status.find("LD_PRELOAD steers loaders or shells") != std::string::npos);
}
