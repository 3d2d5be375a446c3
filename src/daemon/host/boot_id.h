// Which boot of the machine this is, so an @reboot job runs once per boot and not once per
// daemon restart (SPEC 7).
#pragma once

#include <string>

namespace tq {

/// The kernel's boot id (/proc/sys/kernel/random/boot_id), else "btime:N" from the boot time in
/// /proc/stat; "" when neither can be read.
std::string ReadBootId();

}  // namespace tq
