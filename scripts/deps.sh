#!/usr/bin/env bash
# Installs the Debian packages tq needs to build and test, when any is missing.
# As root it runs apt-get directly; otherwise through sudo.
set -euo pipefail

packages=(
  g++ make cmake pkg-config          # the toolchain
  ccache                             # compiles each file once across builds and clones
  libcli11-dev libsqlite3-dev libspdlog-dev libtomlplusplus-dev nlohmann-json3-dev
  doctest-dev                        # unit and integration tests
  libcctz-dev tzdata                 # cron schedules in real time zones, and their tests
  libpam0g-dev                       # the PAM session the shim opens for a task's user
  libsystemd-dev                     # sd_notify: tqd as a Type=notify service
  clang libclang-rt-14-dev           # the libFuzzer build of the cron engine (scripts/test.sh)
  util-linux procps                  # flock, setsid and ps for the tests
  strace                             # the durability test watches the daemon's syscalls
  python3-prometheus-client          # the stats test parses tqd's metrics with a real parser
  groff-base                         # the man pages are linted with groff -ww
  libmicrohttpd-dev                  # the HTTP server of tq web
  libpq-dev postgresql-15            # the PostgreSQL store, and a real server for its tests
  chromium chromium-driver python3-selenium  # tq web's tests in a real browser
  build-essential dpkg-dev debhelper lintian  # the Debian package (packaging/deb/build, tests/package)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
