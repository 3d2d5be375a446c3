#include "cli/full_tq.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/config/paths.h"

namespace tq {

namespace {

char** kept_argv = nullptr;

}  // namespace

void KeepArguments(char** argv) {
  kept_argv = argv;
}

Status RunFullTq() {
  char* none[] = {const_cast<char*>("tq"), nullptr};
  return RunHelper("tq-full", TQ_FULL_INSTALL_PATH, kept_argv != nullptr ? kept_argv : none);
}

Status RunHelper(const std::string& name, const std::string& installed, char* const* argv) {
  const std::string path = HelperPath(name, installed);
  execv(path.c_str(), argv);
  return Status::Internal("cannot run " + path + ": " + std::strerror(errno) + " (" + name +
                          " comes with tq)");
}

}  // namespace tq
