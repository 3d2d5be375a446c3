// The name `tq cron import` gives a crontab job: the program its command runs, found past the
// guards, wrappers and assignments cron lines are full of.
#pragma once

#include <string>
#include <string_view>

namespace tq {

/// A job name for a shell command: the base name of the first word that names a program,
/// skipping shell keywords and operators, `test`/`[ ... ]` and `cd` with their arguments,
/// wrappers (`command`, `exec`, `nice`, `nohup`, ...), options, assignments and redirections;
/// for `run-parts` the directory it runs. Characters outside [A-Za-z0-9_.-] become `_`; at most
/// 64 characters; "job" when nothing fits. Always passes ValidJobName; not unique.
std::string JobNameFromCommand(std::string_view command);

}  // namespace tq
