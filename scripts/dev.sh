#!/usr/bin/env bash
# Installs what is missing, builds, and runs tqd in the foreground with its state (and socket)
# in ./state inside the checkout. From another terminal:
#   export TQ_SOCKET=$PWD/state/tq.sock; ./build/tq submit -- echo hello
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target tqd tq tq-shim
mkdir -p state
echo "tqd: socket $PWD/state/tq.sock; try: TQ_SOCKET=$PWD/state/tq.sock ./build/tq ping" >&2
exec build/tqd --socket "$PWD/state/tq.sock" --state "$PWD/state" "$@"
