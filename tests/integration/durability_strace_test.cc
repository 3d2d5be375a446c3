// Acknowledged means durable (SPEC 6, issue 4), proven with the system calls: tqd runs under
// strace, and every reply that carries a new task id must come after the write-ahead log was
// written and synced following that request's arrival; concurrent submits share syncs (group
// commit). The same check run against `durability = "normal"` must notice the missing syncs.
#include <doctest/doctest.h>

#include <unistd.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr const char* kStrace = "/usr/bin/strace";

// True when strace is installed and may trace here (ptrace can be forbidden in containers).
bool StraceWorks() {
  if (access(kStrace, X_OK) != 0) return false;
  Process probe({kStrace, "-f", "-o", "/dev/null", "/bin/true"}, {});
  return probe.Finish().exit_code == 0;
}

// What the check needs from one system call of tqd's thread.
struct Event {
  enum Kind { kRequestRead, kWalWrite, kWalSync, kIdReply } kind;
  std::string socket;  // "socket:[INODE]" for reads and replies
  long long id = 0;    // the task id a reply carries
};

// strace's arguments: tqd under strace, every thread and child followed, descriptors named.
std::vector<std::string> StraceWrapper(const std::string& trace) {
  return {kStrace, "-f", "-tt", "-y",
          "-s",    "96", "-e",  "trace=fdatasync,fsync,sendto,sendmsg,write,pwrite64,read",
          "-o",    trace};
}

// The descriptor's name strace printed for the call's first argument ("5</path>" → "/path").
std::string FirstFdName(const std::string& call) {
  const size_t open = call.find('(');
  if (open == std::string::npos) return "";
  size_t pos = open + 1;
  while (pos < call.size() && call[pos] >= '0' && call[pos] <= '9') ++pos;
  if (pos == open + 1 || pos >= call.size() || call[pos] != '<') return "";
  const size_t gt = call.find('>', pos);
  return gt == std::string::npos ? "" : call.substr(pos + 1, gt - pos - 1);
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The calls tqd's main thread (`tid`) made, in order, reduced to what the check needs.
std::vector<Event> ParseTrace(const std::string& text, pid_t tid) {
  std::vector<Event> events;
  std::map<std::string, std::string> unfinished;  // tid → the first half of an interrupted call
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string who, when;
    fields >> who >> when;
    std::string call;
    std::getline(fields, call);
    call.erase(0, call.find_first_not_of(' '));
    if (const size_t cut = call.find(" <unfinished ...>"); cut != std::string::npos) {
      unfinished[who] = call.substr(0, cut);
      continue;
    }
    if (call.rfind("<... ", 0) == 0) {
      const size_t resumed = call.find(" resumed>");
      if (resumed == std::string::npos) continue;
      call = unfinished[who] + call.substr(resumed + 9);
    }
    if (who != std::to_string(tid)) continue;
    const std::string name = call.substr(0, call.find('('));
    const std::string fd = FirstFdName(call);
    const size_t eq = call.rfind(" = ");
    const long long ret = eq == std::string::npos ? -1 : std::atoll(call.c_str() + eq + 3);
    const bool wal = EndsWith(fd, "-wal");
    const bool socket = fd.rfind("socket:[", 0) == 0;
    if (name == "read" && socket && ret > 0) {
      events.push_back({Event::kRequestRead, fd});
    } else if ((name == "pwrite64" || name == "write") && wal && ret > 0) {
      events.push_back({Event::kWalWrite, ""});
    } else if ((name == "fdatasync" || name == "fsync") && wal && ret == 0) {
      events.push_back({Event::kWalSync, ""});
    } else if ((name == "sendto" || name == "sendmsg" || name == "write") && socket) {
      const std::string key = "{\\\"id\\\":";
      const size_t at = call.find(key);
      if (at != std::string::npos && call.find("\\\"ok\\\":true") != std::string::npos)
        events.push_back({Event::kIdReply, fd, std::atoll(call.c_str() + at + key.size())});
    }
  }
  return events;
}

// What the check found.
struct Verdict {
  std::vector<long long> replied;     // ids in reply order
  std::vector<long long> unsynced;    // ids replied before their commit was synced
  std::map<long long, size_t> at;     // id → index of its reply in the events
  std::map<long long, size_t> asked;  // id → index of its request's last read
};

// For every reply carrying an id: since the request's last read on that connection, the WAL
// was written and then synced, before the reply.
Verdict Check(const std::vector<Event>& events) {
  Verdict v;
  struct Pending {
    size_t read_at;
    bool wrote = false, synced = false;
  };
  std::map<std::string, Pending> open;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    switch (e.kind) {
      case Event::kRequestRead:
        open[e.socket] = Pending{i};
        break;
      case Event::kWalWrite:
        for (auto& [s, p] : open) p.wrote = true;
        break;
      case Event::kWalSync:
        for (auto& [s, p] : open) p.synced = p.synced || p.wrote;
        break;
      case Event::kIdReply: {
        v.replied.push_back(e.id);
        v.at[e.id] = i;
        auto it = open.find(e.socket);
        if (it == open.end() || !it->second.synced) v.unsynced.push_back(e.id);
        if (it != open.end()) {
          v.asked[e.id] = it->second.read_at;
          open.erase(it);
        }
        break;
      }
    }
  }
  return v;
}

std::string Join(const std::vector<long long>& ids) {
  std::string out;
  for (long long id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  return out;
}

// Submits `n` tasks one `tq` at a time into the paused queue "q"; returns their ids.
std::vector<long long> SubmitSequentially(const TestDaemon& d, int n) {
  std::vector<long long> ids;
  for (int i = 0; i < n; ++i) ids.push_back(std::stoll(Submit(d, {"--queue", "q", "--", "true"})));
  return ids;
}

// Runs the daemon under strace through `submit`, stops it with SIGTERM to tqd and returns
// the parsed trace of tqd's main thread.
std::vector<Event> Traced(TestDaemon& d, const std::string& trace) {
  const pid_t tqd = d.DaemonPid();
  REQUIRE(tqd > 0);
  d.Stop();
  const std::string text = ReadFile(trace);
  REQUIRE_MESSAGE(!text.empty(), "strace wrote nothing to " << trace);
  return ParseTrace(text, tqd);
}

}  // namespace

TEST_CASE("every reply carrying a new id follows a WAL sync made after its request") {
  if (!StraceWorks()) {
    TQ_SKIP(kStrace << " is missing or cannot trace (scripts/deps.sh installs it)");
  }
  tq::TempDir tmp("strace");
  const std::string trace = tmp.File("trace");
  TestDaemon d("[queues.q]\n", StraceWrapper(trace));
  TQ_LOG_ON_FAILURE(d);
  // Nothing starts in a paused queue, so the only commits are the submits.
  REQUIRE(Tq(d, {"queue", "pause", "q"}).exit_code == 0);
  const std::vector<long long> sequential = SubmitSequentially(d, 20);

  // 8 concurrent submitters, 25 `tq submit` each.
  constexpr int kSubmitters = 8, kEach = 25;
  std::vector<std::unique_ptr<Process>> submitters;
  const std::string script =
      "i=0; while [ $i -lt " + std::to_string(kEach) +
      " ]; do \"$0\" --socket \"$1\" submit --queue q -- true || exit 1; i=$((i+1)); done";
  for (int i = 0; i < kSubmitters; ++i)
    submitters.push_back(std::make_unique<Process>(
        std::vector<std::string>{"/bin/sh", "-c", script, BinPath("tq"), d.socket()},
        std::vector<std::string>{d.MarkEnv()}));
  std::vector<long long> concurrent;
  for (auto& p : submitters) {
    // Under strace, sanitizers and a loaded machine, 25 submits may take minutes.
    const RunResult r = p->Finish(600);
    REQUIRE_MESSAGE(r.exit_code == 0, "a submitter failed: " << r.err);
    std::istringstream lines(r.out);
    for (long long id; lines >> id;) concurrent.push_back(id);
  }
  REQUIRE(concurrent.size() == static_cast<size_t>(kSubmitters * kEach));

  const std::vector<Event> events = Traced(d, trace);
  const Verdict v = Check(events);
  INFO("replies in order: " << Join(v.replied));
  CHECK(v.replied.size() == sequential.size() + concurrent.size());
  for (const auto& ids : {sequential, concurrent})
    for (long long id : ids) CHECK_MESSAGE(v.at.count(id) == 1, "no reply carrying id " << id);
  CHECK_MESSAGE(v.unsynced.empty(), "replied before a WAL sync: " << Join(v.unsynced));

  // Group commit: from the first concurrent request to the last concurrent reply, fewer WAL
  // syncs than submits.
  size_t first = events.size(), last = 0;
  for (long long id : concurrent) {
    if (v.asked.count(id)) first = std::min(first, v.asked.at(id));
    if (v.at.count(id)) last = std::max(last, v.at.at(id));
  }
  REQUIRE(first < last);
  int syncs = 0;
  for (size_t i = first; i <= last; ++i) syncs += events[i].kind == Event::kWalSync;
  MESSAGE(concurrent.size() << " concurrent submits shared " << syncs << " WAL syncs");
  CHECK(syncs > 0);
  CHECK(syncs < static_cast<int>(concurrent.size()));
}

TEST_CASE("the syscall check notices replies that durability normal sends before any sync") {
  if (!StraceWorks()) {
    TQ_SKIP(kStrace << " is missing or cannot trace (scripts/deps.sh installs it)");
  }
  tq::TempDir tmp("strace");
  const std::string trace = tmp.File("trace");
  TestDaemon d("durability = \"normal\"\n[queues.q]\n", StraceWrapper(trace));
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(Tq(d, {"queue", "pause", "q"}).exit_code == 0);
  const std::vector<long long> ids = SubmitSequentially(d, 20);
  const Verdict v = Check(Traced(d, trace));
  CHECK(v.replied.size() == ids.size());
  // Synchronous NORMAL syncs the WAL only at checkpoints: most replies precede any sync.
  CHECK(v.unsynced.size() > ids.size() / 2);
}
