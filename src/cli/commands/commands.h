// The subcommands of tq: each file adds one to the CLI11 app and returns what runs it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/client.h"

namespace tq {

/// Options every subcommand shares.
struct GlobalOptions {
  std::string socket;  ///< --socket; empty: $TQ_SOCKET, then the user and system sockets
  bool json = false;   ///< --json: machine-readable output
  /// tq submit's command, byte for byte: from the first argument that is not an option (a later
  /// `--` is one of its arguments), or everything after the first `--`.
  std::vector<std::string> command;
};

/// tq web's flags (SPEC 15).
struct WebFlags {
  std::string listen;       ///< --listen: ADDR:PORT or unix:PATH; empty: 127.0.0.1:8377
  std::string token_file;   ///< --token-file
  std::string user_header;  ///< --trust-user-header
  bool read_only = false;   ///< --read-only
};

/// Adds the `web` subcommand to `app`, its flags parsed into `f` (for tq, which hands it to
/// tq-web, and for tq-web itself).
CLI::App* AddWebCommand(CLI::App& app, WebFlags& f);

/// A subcommand: its parser and the function that runs it and returns the exit code.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Command AddSubmit(CLI::App& app, const GlobalOptions& g);
Command AddStatus(CLI::App& app, const GlobalOptions& g);
Command AddList(CLI::App& app, const GlobalOptions& g);
Command AddWait(CLI::App& app, const GlobalOptions& g);
Command AddCancel(CLI::App& app, const GlobalOptions& g);
Command AddLogs(CLI::App& app, const GlobalOptions& g);
Command AddPing(CLI::App& app, const GlobalOptions& g);
/// tq stats [--prometheus]: the daemon's counts and counters.
Command AddStats(CLI::App& app, const GlobalOptions& g);
/// tq resources: the units of tqd.toml's [resources], in use and free, and their holders.
Command AddResources(CLI::App& app, const GlobalOptions& g);
/// tq hosts: the hosts of the store, live, silent, stopped or fenced, and what each runs.
Command AddHosts(CLI::App& app, const GlobalOptions& g);
/// tq events -f: task state changes as JSON lines, across daemon restarts.
Command AddEvents(CLI::App& app, const GlobalOptions& g);
Command AddVersion(CLI::App& app, const GlobalOptions& g);
Command AddRetry(CLI::App& app, const GlobalOptions& g);
/// tq clean: removes finished tasks and their output, by ids or by filters.
Command AddClean(CLI::App& app, const GlobalOptions& g);
/// tq update: changes a pending task.
Command AddUpdate(CLI::App& app, const GlobalOptions& g);
/// tq hold (or with `release`, tq release): keeps pending tasks from starting, or lets them.
Command AddHold(CLI::App& app, const GlobalOptions& g, bool release);
Command AddQueue(CLI::App& app, const GlobalOptions& g);
/// tq web: serves the web console until INT or TERM.
Command AddWeb(CLI::App& app, const GlobalOptions& g);
/// `tq jobs`: lists the jobs; its subcommands are added by the functions below.
Command AddJobs(CLI::App& app, const GlobalOptions& g);
/// `tq jobs show NAME` under the `jobs` group.
Command AddJobsShow(CLI::App& jobs, const GlobalOptions& g);
/// `tq jobs run NAME [--force]` under the `jobs` group.
Command AddJobsRun(CLI::App& jobs, const GlobalOptions& g);
/// `tq jobs enable NAME` (`enable`) or `tq jobs disable NAME` under the `jobs` group.
Command AddJobsEnable(CLI::App& jobs, const GlobalOptions& g, bool enable);
/// `tq jobs install FILE`, `tq jobs cat` and `tq jobs remove` under the `jobs` group.
std::vector<Command> AddJobsOwnFile(CLI::App& jobs, const GlobalOptions& g);
/// `tq jobs edit` under the `jobs` group: the caller's own job file in $VISUAL or $EDITOR.
Command AddJobsEdit(CLI::App& jobs, const GlobalOptions& g);
/// Installs `text` as the job file of `user` ("" for the caller): what `install` and `edit`
/// send; the daemon's messages call it `name`. A text that is not UTF-8 is refused here.
Result<nlohmann::json> InstallOwnJobFile(Client& client, const std::string& user,
                                         const std::string& text, const std::string& name);

/// `tq reload`: the daemon reads its job files again.
Command AddReload(CLI::App& app, const GlobalOptions& g);
/// `tq cron`: a group; its subcommands are added by the functions below.
Command AddCron(CLI::App& app, const GlobalOptions& g);
/// `tq cron next` under the `cron` group.
Command AddCronNext(CLI::App& cron, const GlobalOptions& g);
/// `tq cron import [FILE] [--system | --user-format]` under the `cron` group.
Command AddCronImport(CLI::App& cron, const GlobalOptions& g);
/// `tq jobs check FILE...` under the `jobs` group: job files checked locally, no daemon.
Command AddJobsCheck(CLI::App& jobs, const GlobalOptions& g);

}  // namespace tq
