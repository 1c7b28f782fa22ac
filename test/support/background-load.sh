#!/usr/bin/env bash
# A lab laptop is never idle: LOAD=N in front of the test command (`LOAD=2 npm test`, or
# `LOAD=2 bash test/env.sh npx vitest run FILE`) runs N busy loops and one disk writer beside the
# tests for as long as they run, so timing that only holds on an idle machine shows up as a red
# test here rather than as a wrong take on someone's desk.
# Usage: bash test/support/background-load.sh N   (runs until it gets SIGTERM/SIGINT)
set -uo pipefail
n=${1:?usage: background-load.sh N}
[[ $n =~ ^[0-9]+$ ]] || { echo "LOAD must be a whole number of busy loops, not '$n'" >&2; exit 2; }
dir=$(mktemp -d)
pids=()
stop() {
  kill "${pids[@]}" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$dir"
  exit 0
}
trap stop TERM INT HUP
for _ in $(seq "$n"); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
# The disk writer: 64 MB written and flushed again and again (fsync stalls are part of a busy laptop).
bash -c "while :; do dd if=/dev/zero of='$dir/junk' bs=1M count=64 conv=fsync status=none; done" &
pids+=($!)
echo "background load: $n busy loop(s) and a disk writer (pids ${pids[*]})" >&2
# A parent that dies without stopping us (kill -9) must not leave busy loops behind.
parent=$PPID
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
stop
