// tq jobs edit [-u USER]: the caller's own job file in $VISUAL or $EDITOR, as `crontab -e` does:
// checked by the daemon on save, the editor opened again on an error if the user wants, and the
// last good file kept in force until a good one is installed.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/job_file_text.h"
#include "cli/render.h"

extern char** environ;

namespace tq {

namespace {

// What a new job file starts as.
constexpr const char* kTemplate =
    "# Your own cron jobs: tqd runs them as you. Each job is a [[job]] table (tq-jobs(5)),\n"
    "# named here as NAME and everywhere else as USER/NAME. For example:\n"
    "#\n"
    "# [[job]]\n"
    "# name = \"backup\"\n"
    "# schedule = \"0 3 * * *\"\n"
    "# command = \"rsync -a ~/work/ ~/backup/\"\n";

// The editor to run, as crontab chooses it: $VISUAL, $EDITOR, sensible-editor, vi.
std::string Editor() {
  for (const char* name : {"VISUAL", "EDITOR"})
    if (const char* e = std::getenv(name); e != nullptr && *e != '\0') return e;
  if (access("/usr/bin/sensible-editor", X_OK) == 0) return "/usr/bin/sensible-editor";
  return "vi";
}

// Runs the editor on `path` through /bin/sh (the variable may hold arguments); its exit code,
// or -1 when it could not start or was killed.
int RunEditor(const std::string& path) {
  const std::string script = Editor() + " \"$1\"";
  const char* argv[] = {"sh", "-c", script.c_str(), "sh", path.c_str(), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
    return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Writes `text` to a new temporary file; its path, or "" when it cannot.
std::string TempCopy(const std::string& text) {
  const char* dir = std::getenv("TMPDIR");
  std::string path =
      std::string(dir != nullptr && *dir == '/' ? dir : "/tmp") + "/tq-jobs-XXXXXX.toml";
  const int fd = mkstemps(path.data(), 5);
  if (fd < 0) return "";
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!ok) unlink(path.c_str());
  return ok ? path : "";
}

// Asks on stderr whether to edit again; reads the answer from standard input.
bool EditAgain() {
  std::fprintf(stderr, "Edit again? (y/n) ");
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return !answer.empty() && (answer[0] == 'y' || answer[0] == 'Y');
}

int Edit(const GlobalOptions& g, const std::string& user) {
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  CrontabRequest cat;
  cat.user = user;
  auto current = client->Call(cat);
  if (!current.ok() && current.status().code() != ErrorCode::kNotFound)
    return Fail(current.status());
  const std::string original = current.ok() ? (*current)["text"].get<std::string>() : kTemplate;
  const std::string path = TempCopy(original);
  if (path.empty()) return Fail(Status::Internal("cannot create a temporary file to edit"));
  const auto done = [&](int code) {
    unlink(path.c_str());
    return code;
  };
  for (;;) {
    if (const int rc = RunEditor(path); rc != 0) {
      std::fprintf(stderr, "tq: the editor (%s) failed (exit %d); nothing was installed\n",
                   Editor().c_str(), rc);
      return done(1);
    }
    auto text = ReadJobFileText(path);
    if (!text.ok()) return done(Fail(text.status()));
    if (*text == original) {
      std::fprintf(stderr, "tq: no changes made to the job file\n");
      return done(0);
    }
    // A new connection: the editor may have been open longer than the daemon keeps one idle.
    auto again = Client::Connect(g.socket);
    auto installed = again.ok() ? InstallOwnJobFile(*again, user, *text, path)
                                : Result<nlohmann::json>(again.status());
    if (installed.ok()) {
      std::printf("installed %zu job(s)\n", (*installed)["jobs"].size());
      return done(0);
    }
    std::fprintf(stderr, "tq: %s\n", installed.status().message().c_str());
    if (installed.status().code() != ErrorCode::kInvalid) {
      // Not the file's fault: keep the edit where the user can find it.
      std::fprintf(stderr, "tq: nothing was installed; your edit is kept in %s\n", path.c_str());
      return 1;
    }
    if (!EditAgain()) {
      std::fprintf(stderr, "tq: nothing was installed; the last good job file stays in force\n");
      return done(2);
    }
  }
}

}  // namespace

Command AddJobsEdit(CLI::App& jobs, const GlobalOptions& g) {
  auto* sub = jobs.add_subcommand(
      "edit",
      "Edit your own job file in $VISUAL or $EDITOR; it is checked when you save and installed "
      "only when it loads");
  auto user = std::make_shared<std::string>();
  sub->add_option("-u,--user", *user, "another user's job file (root only)");
  return {sub, [user, &g]() { return Edit(g, *user); }};
}

}  // namespace tq
