#!/usr/bin/env bash
# Installs what is missing, builds, and runs tqd in the foreground with its state (and socket)
# in ./state inside the checkout. From another terminal:
#   export TQ_SOCKET=$PWD/state/tq.sock; ./build/tq submit -- echo hello
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# Configured once; a later build reconfigures by itself when a CMakeLists.txt changed.
[ -f build/CMakeCache.txt ] || cmake -S . -B build >/dev/null
cmake --build build -j"$(nproc)" --target tqd tq tq-full tq-web tq-shim
# The state holds tasks' environments and output: tqd refuses one that group or others may read
# or write (mkdir's 0755 under the usual umask). Others may enter it (0711), as they must to
# reach the socket and, when tqd runs as root, their tasks' contexts.
[ -d state ] || mkdir -m 0711 state
chmod go-rw state
echo "tqd: socket $PWD/state/tq.sock; try: TQ_SOCKET=$PWD/state/tq.sock ./build/tq ping" >&2
exec build/tqd --socket "$PWD/state/tq.sock" --state "$PWD/state" "$@"
