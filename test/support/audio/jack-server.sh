#!/usr/bin/env bash
# Runs COMMAND beside a real JACK server, without touching this machine's /dev/shm:
#   bash test/support/audio/jack-server.sh COMMAND [ARGS...]
# COMMAND runs in a private mount namespace whose /dev/shm is a fresh tmpfs, where jackd (JACK2,
# the dummy backend: two silent capture ports at 48 kHz) is started first. JACK_SERVER=none starts
# no server: the same namespace, for a control. After COMMAND ends, the server is stopped and what
# /dev/shm holds is said on stderr ("jack-server: shm: ..."), so a test can tell whether libjack
# was loaded (it makes jack_db-<uid> there). Exits with COMMAND's code; 3 if jackd cannot start.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: jack-server.sh COMMAND [ARGS...]" >&2; exit 2; }
# shellcheck source=private-shm.sh
source "$(dirname "$0")/private-shm.sh"
# jackd maps ~105 MB of shared memory for its engine.
private_shm capture-desk-test-jack 256m "$@"
jackd_pid=
if [ "${JACK_SERVER:-jackd}" != none ]; then
  command -v jackd >/dev/null || { echo "jack-server: jackd is missing (see .ci/system-deps.sh)" >&2; exit 3; }
  log=$(mktemp)
  jackd --no-realtime -d dummy -r 48000 -p 1024 -C 2 -P 2 >"$log" 2>&1 &
  jackd_pid=$!
  sock=/dev/shm/jack_default_$(id -u)_0
  for _ in $(seq 100); do [ -S "$sock" ] && break; kill -0 "$jackd_pid" 2>/dev/null || break; sleep 0.1; done
  [ -S "$sock" ] || { echo "jack-server: jackd did not start: $(tail -n 3 "$log" | tr '\n' ' ')" >&2; exit 3; }
fi
echo "jack-server: ready" >&2
code=0
"$@" || code=$?
if [ -n "$jackd_pid" ]; then kill "$jackd_pid" 2>/dev/null || true; wait "$jackd_pid" 2>/dev/null || true; fi
echo "jack-server: shm: $(ls -A /dev/shm | tr '\n' ' ')" >&2
exit "$code"
