#!/usr/bin/env bash
# scripts/test.sh ends with its phase times, printed by an EXIT trap: the trap must leave the
# script's exit status as it was, with or without --all (it once turned a green run without
# --all into exit 1). Runs the script's own trap code, cut from it, for each case.
set -u
script=${1:?usage: test_sh_status_test.sh PATH/TO/scripts/test.sh}
trap_code=$(sed -n '/^report() {/,/^trap /p' "$script")
[ -n "$trap_code" ] || { echo "FAIL: no report/trap block found in $script"; exit 1; }
failed=0
for all in 0 1; do
  for code in 0 1 3; do
    out=$(bash -c "set -euo pipefail; all=$all; phases=('build 1 s'); $trap_code
exit $code" 2>&1)
    rc=$?
    if [ "$rc" != "$code" ]; then
      echo "FAIL: all=$all, exit $code: the script exited $rc"
      failed=1
    fi
    case $out in
      *"== phase times"*"build 1 s"*total*) ;;
      *) echo "FAIL: all=$all, exit $code: no phase times in: $out"; failed=1 ;;
    esac
  done
done
[ "$failed" = 0 ] && echo "ok: test.sh keeps its exit status and prints its phase times"
exit "$failed"
