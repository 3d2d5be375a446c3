#include "daemon/host/boot_id.h"

#include <fstream>

namespace tq {

std::string ReadBootId() {
  std::string id;
  if (std::ifstream in("/proc/sys/kernel/random/boot_id");
      in && std::getline(in, id) && !id.empty())
    return id;
  // Without the boot id (an old or restricted /proc): the boot time stands for the boot.
  std::ifstream stat("/proc/stat");
  std::string line;
  while (std::getline(stat, line))
    if (line.rfind("btime ", 0) == 0) return "btime:" + line.substr(6);
  return "";
}

}  // namespace tq
