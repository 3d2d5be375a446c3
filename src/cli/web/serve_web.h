// tq-web's console: what `tq web` runs (SPEC 15).
#pragma once

#include "cli/commands/commands.h"

namespace tq {

/// Serves the web console as `f` says, a client of the daemon on `g`'s socket, until INT or
/// TERM; returns the exit code.
int ServeWeb(const WebFlags& f, const GlobalOptions& g);

}  // namespace tq
