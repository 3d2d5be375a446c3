#!/usr/bin/env bash
# The README's first command, scripts/dev.sh, as a newcomer runs it: in a checkout with no
# ./state yet, under the usual umask 022, then `tq ping` and a task submitted through its socket.
# Then again where an older script left ./state at mode 0755. The checkout is a copy of scripts/
# whose build/ is the build tree under test (dev.sh configures a tree only once, so it finds
# this one built and builds nothing).
set -u
src=${1:?usage: dev_sh_test.sh SOURCE_DIR BUILD_DIR}
build=${2:?usage: dev_sh_test.sh SOURCE_DIR BUILD_DIR}
tmp=$(mktemp -d)
chmod 0755 "$tmp"
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/checkout"
cp -r "$src/scripts" "$tmp/checkout/scripts"
ln -s "$build" "$tmp/checkout/build"
tq=$tmp/checkout/build/tq
failed=0

# run_case NAME: starts dev.sh, submits a task through its socket, stops it.
run_case() {
  local name=$1 socket=$tmp/checkout/state/tq.sock
  (umask 022 && exec "$tmp/checkout/scripts/dev.sh") >"$tmp/dev.log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do  # up to 60 s for the socket
    "$tq" --socket "$socket" ping >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! "$tq" --socket "$socket" ping >/dev/null 2>&1; then
    echo "FAIL ($name): tq ping does not reach the tqd of scripts/dev.sh:"
    cat "$tmp/dev.log"
    failed=1
  else
    local id out
    id=$("$tq" --socket "$socket" submit -- echo hello) &&
      "$tq" --socket "$socket" wait "$id" &&
      out=$("$tq" --socket "$socket" logs "$id")
    if [ "${out:-}" != hello ]; then
      echo "FAIL ($name): a task through dev.sh's tqd printed '${out:-}', not hello"
      failed=1
    fi
    local mode
    mode=$(stat -c %a "$tmp/checkout/state")
    case $mode in
      700 | 711) ;;
      *) echo "FAIL ($name): ./state is mode $mode"; failed=1 ;;
    esac
  fi
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  pid=
}

run_case "a fresh checkout"
rm -rf "$tmp/checkout/state"
(umask 022 && mkdir "$tmp/checkout/state")
run_case "a ./state made 0755 by an older script"
[ "$failed" = 0 ] && echo "ok: scripts/dev.sh runs tqd that tq reaches, from a fresh checkout"
exit "$failed"
