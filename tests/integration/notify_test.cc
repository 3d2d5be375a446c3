// Notifications (SPEC 7a) through the real tq and tqd: hooks that write what they were told to
// files, a fake sendmail that keeps the mail it gets, a hook that outlives hook_timeout, jobs'
// hooks and mail, and the dead man's switch of a job that never succeeds.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// A hook that appends one line to `file`: its name and every TQ_ variable, then the output.
std::string RecordingHook(const std::string& file) {
  return "{ echo \"$TQ_HOOK task=$TQ_TASK_ID job=$TQ_JOB state=$TQ_STATE reason=$TQ_REASON "
         "exit=$TQ_EXIT_CODE attempt=$TQ_ATTEMPT\"; cat \"$TQ_OUTPUT\"; } >> " +
         Quoted(file);
}

// The lines of `file` that start with `prefix`.
std::vector<std::string> LinesStarting(const std::string& file, const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& line : FileLines(file))
    if (line.starts_with(prefix)) out.push_back(line);
  return out;
}

// Writes an executable sendmail in `dir` that keeps its arguments and the message it reads.
std::string FakeSendmail(const std::string& dir) {
  const std::string path = dir + "/sendmail";
  WriteFile(path, "#!/bin/sh\necho \"args: $*\" > " + Quoted(dir + "/mail.tmp") + "\ncat >> " +
                      Quoted(dir + "/mail.tmp") + "\nmv " + Quoted(dir + "/mail.tmp") + " " +
                      Quoted(dir + "/mail") + "\n");
  REQUIRE(chmod(path.c_str(), 0755) == 0);
  return path;
}

// A hook that appends "start" to `starts`, then runs until `gate` exists.
std::string HangingHook(const std::string& starts, const std::string& gate) {
  return "echo start >> " + Quoted(starts) + "; while [ ! -e " + Quoted(gate) +
         " ]; do sleep 0.05; done";
}

// tq_hooks_total{result="RESULT"} of `tq stats --prometheus`; -1 when it is not there.
long HookCount(const TestDaemon& d, const std::string& result) {
  const std::string key = "tq_hooks_total{result=\"" + result + "\"} ";
  const std::string out = Tq(d, {"stats", "--prometheus"}).out;
  const size_t at = out.find(key);
  return at == std::string::npos ? -1 : std::stol(out.substr(at + key.size()));
}

// How many times the daemon's log says `text`.
size_t LogCount(const TestDaemon& d, const std::string& text) {
  const std::string log = d.Log();
  size_t n = 0;
  for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("on_failure runs once, after the last retry, with the TQ_ variables and the output") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/hooks";
  const std::string id = Submit(
      d, {"--retries", "2", "--backoff", "fixed", "--backoff-base", "10ms", "--no-jitter",
          "--on-failure", RecordingHook(file), "--on-finish", RecordingHook(file), "--on-success",
          RecordingHook(file), "--", "sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3"});
  CHECK(Tq(d, {"wait", id}).exit_code != 0);
  REQUIRE(WaitFor([&] {
    return LinesStarting(file, "on_finish").size() == 1 &&
           LinesStarting(file, "on_failure").size() == 1;
  }));
  REQUIRE(WaitFor(
      [&] { return LogCount(d, "on_failure: done") == 1 && LogCount(d, "on_finish: done") == 1; }));
  const std::string expected = " task=" + id + " job= state=failed reason=exit exit=3 attempt=3";
  CHECK(LinesStarting(file, "on_failure")[0] == "on_failure" + expected);
  CHECK(LinesStarting(file, "on_finish")[0] == "on_finish" + expected);
  CHECK(LinesStarting(file, "on_success").empty());
  CHECK(LinesStarting(file, "to-stdout").size() == 2);
  CHECK(LinesStarting(file, "to-stderr").size() == 2);
  CHECK(LogCount(d, "on_failure: done") == 1);  // not once per failed attempt
}

TEST_CASE("on_success and on_finish run for a success, on_failure does not") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/hooks";
  const std::string id =
      Submit(d, {"--on-failure", RecordingHook(file), "--on-success", RecordingHook(file),
                 "--on-finish", RecordingHook(file), "--", "echo", "fine"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  REQUIRE(WaitFor([&] { return LogCount(d, " done") == 2; }));
  CHECK(LinesStarting(file, "on_success") ==
        std::vector<std::string>{"on_success task=" + id +
                                 " job= state=succeeded reason=exit exit=0 attempt=1"});
  CHECK(LinesStarting(file, "on_finish").size() == 1);
  CHECK(LinesStarting(file, "on_failure").empty());
  CHECK(LinesStarting(file, "fine").size() == 2);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["on_success"] == RecordingHook(file));
  CHECK(t["mail_on"] == "failure");
}

TEST_CASE("a failed task with mailto is mailed through sendmail with its output") {
  const tq::TempDir mailbox("mail");
  const std::string sendmail = FakeSendmail(mailbox.path.string());
  TestDaemon d("sendmail = " + nlohmann::json(sendmail).dump() + "\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--mailto", "ops@example.com,dev@example.com", "--", "sh", "-c",
                                    "echo the disk is full; exit 3"});
  CHECK(Tq(d, {"wait", id}).exit_code != 0);
  const std::string mail = mailbox.File("mail");
  REQUIRE(WaitFor([&] { return !ReadFile(mail).empty(); }));
  const std::string m = ReadFile(mail);
  CHECK(m.starts_with("args: -i -t\nTo: ops@example.com,dev@example.com\n"));
  CHECK(m.find(": task " + id + " failed (exit 3)\n") != std::string::npos);
  CHECK(m.find("\nthe disk is full\n") != std::string::npos);

  // A success is not mailed unless mail_on is always.
  std::remove(mail.c_str());
  const std::string ok = Submit(d, {"--mailto", "ops@example.com", "--", "true"});
  const std::string always =
      Submit(d, {"--mailto", "ops@example.com", "--mail-on", "always", "--", "echo", "all good"});
  CHECK(Tq(d, {"wait", ok, always}).exit_code == 0);
  REQUIRE(WaitFor([&] { return !ReadFile(mail).empty(); }));
  CHECK(ReadFile(mail).find(": task " + always + " succeeded (exit 0)\n") != std::string::npos);
  REQUIRE(WaitFor([&] { return LogCount(d, " mail: done") == 2; }));
}

TEST_CASE("mail_on output mails a run that printed anything, whatever its end, as cron does") {
  const tq::TempDir mailbox("mail");
  const std::string sendmail = FakeSendmail(mailbox.path.string());
  TestDaemon d("sendmail = " + nlohmann::json(sendmail).dump() + "\n");
  TQ_LOG_ON_FAILURE(d);
  const std::vector<std::string> mail_on = {"--mailto", "ops@example.com", "--mail-on", "output"};
  const auto submit = [&](const std::string& shell) {
    std::vector<std::string> args = mail_on;
    args.insert(args.end(), {"--shell", shell});
    return Submit(d, args);
  };
  // Silent runs, a success and a failure: no mail.
  const std::string silent_ok = submit("true");
  const std::string silent_failed = submit("exit 4");
  Tq(d, {"wait", silent_ok, silent_failed});
  // A success that printed a warning: mailed, with what it printed.
  const std::string warned = submit("echo 'WARNING: disk 91% full'");
  CHECK(Tq(d, {"wait", warned}).exit_code == 0);
  const std::string mail = mailbox.File("mail");
  REQUIRE(WaitFor([&] { return !ReadFile(mail).empty(); }));
  const std::string m = ReadFile(mail);
  CHECK(m.find(": task " + warned + " succeeded (exit 0)\n") != std::string::npos);
  CHECK(m.find("\nWARNING: disk 91% full\n") != std::string::npos);
  REQUIRE(WaitFor([&] { return LogCount(d, " mail: done") >= 1; }));
  CHECK(LogCount(d, " mail: done") == 1);
  CHECK(TaskJson(d, warned)["mail_on"] == "output");
}

TEST_CASE("without sendmail a mail is a logged warning and the task is unharmed") {
  TestDaemon d("sendmail = \"/nonexistent/sendmail\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--mailto", "ops@example.com", "--", "false"});
  CHECK(Tq(d, {"wait", id}).exit_code != 0);
  REQUIRE(WaitFor([&] { return LogCount(d, "no mail to ops@example.com") == 1; }));
  CHECK(LogCount(d, "/nonexistent/sendmail is not there") == 1);
  CHECK(TaskState(d, id) == "failed");
}

TEST_CASE("bad hooks and addresses are refused at submit, naming the field") {
  TestDaemon d;
  const RunResult bad_mail = Tq(d, {"submit", "--mailto", "ops@example.com\nBcc: x@y", "true"});
  CHECK(bad_mail.exit_code == 2);
  CHECK(bad_mail.err.find("mailto") != std::string::npos);
  const RunResult option = Tq(d, {"submit", "--mailto", "-oQ/tmp", "--", "true"});
  CHECK(option.exit_code == 2);
  const RunResult empty = Tq(d, {"submit", "--on-failure", "", "--", "true"});
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.find("on-failure") != std::string::npos);
  const RunResult huge = Tq(d, {"submit", "--on-success", std::string(5000, 'x'), "--", "true"});
  CHECK(huge.exit_code == 2);
  CHECK(ListTasks(d).empty());
}

TEST_CASE("a hook that outlives hook_timeout is stopped and the next one still runs") {
  TestDaemon d("hook_timeout = \"1s\"\nkill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/after";
  const std::string slow = Submit(d, {"--on-finish", "exec sleep 60", "--", "true"});
  CHECK(Tq(d, {"wait", slow}).exit_code == 0);
  REQUIRE(WaitFor([&] { return LogCount(d, "task " + slow + " on_finish: timed out\n") == 1; }));
  const std::string next = Submit(d, {"--on-finish", "echo ran > " + Quoted(file), "--", "true"});
  CHECK(Tq(d, {"wait", next}).exit_code == 0);
  REQUIRE(WaitFor([&] { return ReadFile(file) == "ran\n"; }));
}

TEST_CASE("a job's hooks and mail come from its job file") {
  const tq::TempDir mailbox("mail");
  const std::string sendmail = FakeSendmail(mailbox.path.string());
  TestDaemon d("sendmail = " + nlohmann::json(sendmail).dump() + "\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/hooks";
  d.WriteJobFile("nightly.toml",
                 "[[job]]\nname = \"nightly\"\nschedule = \"@yearly\"\n"
                 "command = \"echo job output; exit 4\"\n"
                 "on_failure = " +
                     nlohmann::json(RecordingHook(file)).dump() +
                     "\nmailto = \"ops@example.com\"\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  const RunResult run = Tq(d, {"jobs", "run", "nightly"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  REQUIRE(WaitFor([&] { return LinesStarting(file, "on_failure").size() == 1; }));
  CHECK(LinesStarting(file, "on_failure")[0].find(" job=nightly state=failed reason=exit exit=4") !=
        std::string::npos);
  REQUIRE(WaitFor([&] { return !ReadFile(mailbox.File("mail")).empty(); }));
  CHECK(ReadFile(mailbox.File("mail")).find("(nightly) failed (exit 4)") != std::string::npos);
}

TEST_CASE("on_failure still runs for a task that could not start for want of its directory") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/hooks";
  d.WriteJobFile("lost.toml",
                 "[[job]]\nname = \"lost\"\nschedule = \"@yearly\"\n"
                 "command = \"true\"\ncwd = " +
                     nlohmann::json(d.dir() + "/gone").dump() +
                     "\non_failure = " + nlohmann::json(RecordingHook(file)).dump() + "\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  REQUIRE(Tq(d, {"jobs", "run", "lost"}).exit_code == 0);
  REQUIRE(WaitFor([&] { return LinesStarting(file, "on_failure").size() == 1; }));
  CHECK(LinesStarting(file, "on_failure")[0].find(" state=failed reason=spawn-failed") !=
        std::string::npos);
}

TEST_CASE("a job that has not succeeded within expect_success_within alerts once" *
          doctest::test_suite("long")) {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/alerts";
  d.WriteJobFile("watched.toml",
                 "[[job]]\nname = \"watched\"\nschedule = \"@yearly\"\n"
                 "command = \"true\"\nexpect_success_within = \"3s\"\n"
                 "on_failure = " +
                     nlohmann::json(RecordingHook(file)).dump() + "\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  REQUIRE(WaitFor([&] { return LinesStarting(file, "on_failure").size() == 1; }));
  CHECK(LinesStarting(file, "on_failure")[0] ==
        "on_failure task= job=watched state=overdue reason=no success within 3s exit= attempt=0");
  const RunResult stats = Tq(d, {"stats", "--prometheus"});
  CHECK(stats.out.find("tq_job_overdue{job=\"watched\"} 1\n") != std::string::npos);
  CHECK(stats.out.find("tq_job_overdue_alerts_total 1\n") != std::string::npos);
  CHECK(Tq(d, {"jobs"}).out.find("overdue, last -") != std::string::npos);
  CHECK(nlohmann::json::parse(Tq(d, {"jobs", "show", "--json", "watched"}).out)["overdue"] == true);

  // A restart does not raise the same stretch's alert again.
  d.Restart();
  CHECK(LogCount(d, "job watched is overdue") == 1);

  // A success ends the stretch: no longer overdue, and a new stretch can alert again.
  REQUIRE(Tq(d, {"jobs", "run", "watched"}).exit_code == 0);
  REQUIRE(WaitFor([&] {
    return Tq(d, {"stats", "--prometheus"}).out.find("tq_job_overdue{job=\"watched\"} 0\n") !=
           std::string::npos;
  }));
  REQUIRE(WaitFor([&] { return LinesStarting(file, "on_failure").size() == 2; }));
}

TEST_CASE("the system daemon runs a user's hook as that user, who can read TQ_OUTPUT") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string out_dir = d.dir() + "/hook-out";
  REQUIRE(mkdir(out_dir.c_str(), 0777) == 0);
  REQUIRE(chmod(out_dir.c_str(), 01777) == 0);
  REQUIRE(chmod(d.dir().c_str(), 0755) == 0);
  const std::string result = out_dir + "/result";
  const std::string id =
      SubmitAs(d, alice,
               {"--on-failure", "{ id -u; cat \"$TQ_OUTPUT\"; } > " + Quoted(result), "--", "sh",
                "-c", "echo secret output; exit 1"});
  CHECK(Tq(d, {"wait", id}).exit_code != 0);
  REQUIRE(WaitFor([&] { return LogCount(d, "on_failure: done") == 1; }));
  CHECK(ReadFile(result) == std::to_string(alice.uid()) + "\nsecret output\n");
  struct stat st {};
  REQUIRE(stat(result.c_str(), &st) == 0);
  CHECK(st.st_uid == alice.uid());
}

TEST_CASE("a hook running when tqd is killed finishes once and is never run again") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/hook-runs";
  const std::string gate = d.dir() + "/gate";
  const std::string hook = "echo start >> " + Quoted(file) + "; while [ ! -e " + Quoted(gate) +
                           " ]; do sleep 0.05; done; echo end >> " + Quoted(file);
  const std::string id = Submit(d, {"--on-finish", hook, "--", "true"});
  REQUIRE(WaitFor([&] { return FileLines(file) == std::vector<std::string>{"start"}; }));
  d.Kill9();
  d.Start();
  d.WaitReady();
  WriteFile(gate, "");
  REQUIRE(WaitFor([&] { return FileLines(file) == std::vector<std::string>{"start", "end"}; }));
  // A hook of the new daemon runs and ends: had the old one been run again, it would be there.
  const std::string marker = d.dir() + "/after";
  const std::string next = Submit(d, {"--on-finish", "echo ran > " + Quoted(marker), "--", "true"});
  CHECK(Tq(d, {"wait", next}).exit_code == 0);
  REQUIRE(WaitFor([&] { return ReadFile(marker) == "ran\n"; }));
  CHECK(FileLines(file) == std::vector<std::string>{"start", "end"});
  CHECK(TaskState(d, id) == "succeeded");
}

TEST_CASE("a user whose hooks hang holds at most half the hook slots: others' hooks still run") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice;
  TestDaemon d("max_running = 10\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string starts = d.dir() + "/starts";
  const std::string gate = d.dir() + "/gate";
  const std::string hang = HangingHook(starts, gate);
  for (int i = 0; i < 10; ++i) Submit(d, {"--on-finish", hang, "--", "true"});
  REQUIRE(WaitFor([&] { return FileLines(starts).size() == 4; }));

  const std::string out_dir = d.dir() + "/hook-out";
  REQUIRE(mkdir(out_dir.c_str(), 01777) == 0);
  REQUIRE(chmod(out_dir.c_str(), 01777) == 0);
  REQUIRE(chmod(d.dir().c_str(), 0755) == 0);
  const std::string told = out_dir + "/told";
  SubmitAs(d, alice, {"--on-finish", "echo told > " + Quoted(told), "--", "true"});
  REQUIRE(WaitFor([&] { return ReadFile(told) == "told\n"; }));
  CHECK(FileLines(starts).size() == 4);  // root's six others still wait

  WriteFile(gate, "");
  REQUIRE(WaitFor([&] { return FileLines(starts).size() == 10; }));
}

TEST_CASE("hooks waiting with large environments are dropped past the bytes one user may hold") {
  TestDaemon d("max_running = 10\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string starts = d.dir() + "/starts";
  const std::string gate = d.dir() + "/gate";
  const std::string hang = HangingHook(starts, gate);
  for (int i = 0; i < 4; ++i) Submit(d, {"--on-finish", hang, "--", "true"});
  REQUIRE(WaitFor([&] { return FileLines(starts).size() == 4; }));

  // Each waiting hook holds its task's environment of about 1 MB: 16 fit in a user's 16 MiB, the
  // 17th and later do not. (Ten variables: exec takes at most 128 KiB in one.)
  std::vector<std::string> env = {d.MarkEnv()};
  for (int i = 0; i < 10; ++i)
    env.push_back("BIG" + std::to_string(i) + "=" + std::string(100 * 1000, 'x'));
  for (int i = 0; i < 20; ++i) {
    const RunResult r = RunTq(d.socket(), {"submit", "--on-finish", hang, "--", "true"}, env);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  }
  REQUIRE(WaitFor([&] { return HookCount(d, "dropped") == 4; }));
  CHECK(LogCount(d, "hooks are already waiting with") >= 1);

  WriteFile(gate, "");
  REQUIRE(WaitFor([&] { return HookCount(d, "succeeded") == 20; }));
  CHECK(HookCount(d, "dropped") == 4);
  CHECK(FileLines(starts).size() == 20);
}

TEST_CASE("a hook runs with its task's nice, ionice and limits") {
  TestDaemon d("[queues.batch]\nnice = 10\nionice = \"idle\"\nnofile = 128\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string file = d.dir() + "/probe";
  const std::string probe =
      "{ cut -d' ' -f19 /proc/self/stat; ionice -p $$; grep '^Max open "
      "files' /proc/self/limits | tr -s ' '; } > " +
      Quoted(file + ".tmp") + " && mv " + Quoted(file + ".tmp") + " " + Quoted(file);
  Submit(d, {"--queue", "batch", "--on-finish", probe, "--", "true"});
  REQUIRE(WaitFor([&] { return !ReadFile(file).empty(); }));
  CHECK(ReadFile(file) == "10\nidle\nMax open files 128 128 files \n");
}

TEST_CASE("users whose hooks hang never hold every hook slot: one is kept for admins") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d("hook_timeout = \"10m\"\n");
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(chmod(d.dir().c_str(), 0755) == 0);
  const std::string gate = d.dir() + "/gate";
  const std::string hang = "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done";
  for (const TempUser* user : {&alice, &bob})
    for (int i = 0; i < 4; ++i) SubmitAs(d, *user, {"--on-finish", hang, "--", "true"});
  // Seven of their hooks run (each user's share is four); the eighth waits for a slot.
  REQUIRE(WaitFor([&] { return LogCount(d, "on_finish: started") >= 7; }));
  const std::string done = d.dir() + "/root-hook";
  const std::string id = Submit(d, {"--on-finish", "touch " + Quoted(done), "--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(WaitFor([&] { return access(done.c_str(), F_OK) == 0; }));  // root's runs at once
  WriteFile(gate, "");
  CHECK(WaitFor([&] { return LogCount(d, "on_finish: done") == 9; }));
}

TEST_CASE("a hook still running when tqd restarts is adopted and stopped at its deadline") {
  TestDaemon d("hook_timeout = \"4s\"\nkill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pid_file = d.dir() + "/hook-pid";
  const std::string id = Submit(
      d, {"--on-finish", "echo $$ > " + Quoted(pid_file) + "; exec sleep 600", "--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  REQUIRE(WaitFor([&] { return !ReadFile(pid_file).empty(); }));
  const pid_t hook = std::stoi(ReadFile(pid_file));
  d.Kill9();  // the hook's shim runs on
  CHECK(kill(hook, 0) == 0);
  d.Start();
  d.WaitReady();
  CHECK(WaitFor([&] { return LogCount(d, "still running from before the restart") == 1; }));
  // Stopped at the deadline the first daemon set, not left to run for ever.
  CHECK(WaitFor([&] { return LogCount(d, "on_finish: timed out after") == 1; }));
  CHECK(WaitFor([&] { return kill(hook, 0) != 0; }));
}
