#!/usr/bin/env bash
# Runs COMMAND where JACK's metadata lock is wedged, without touching this machine's real one:
#   bash test/support/audio/jack-wedge.sh COMMAND [ARGS...]
# COMMAND runs in a private mount namespace whose /dev/shm is a fresh tmpfs. In it, libjack first
# creates its metadata database (/dev/shm/jack_db-<uid>, Berkeley DB), then a second libjack user
# runs under gdb and is killed at the instant it holds the environment's lock (its first
# __db_pthread_mutex_lock, in __env_ref_increment): a process that died holding the lock, the state
# that hung every device listing in issue 30. The tmpfs, and the stale lock with it, ends with the
# namespace; the real /dev/shm is never opened. Exit 3: the wedge could not be made (missing tool).
# COMMAND replaces this script (same pid), after "jack-wedge: ready" on stderr.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: jack-wedge.sh COMMAND [ARGS...]" >&2; exit 2; }
# shellcheck source=private-shm.sh
source "$(dirname "$0")/private-shm.sh"
private_shm capture-desk-test-shm 16m "$@"
for tool in gdb python3; do command -v "$tool" >/dev/null || { echo "jack-wedge: $tool is missing (see .ci/system-deps.sh)" >&2; exit 3; }; done
PY=$(python3 -c 'import sys; print(sys.executable)')   # a real executable for gdb (not a pyenv shim)
OPEN='import ctypes; j = ctypes.CDLL("libjack.so.0"); j.jack_client_open.restype = ctypes.c_void_p; j.jack_client_open(b"capture-desk-test", 1, None)'
"$PY" -c "$OPEN" >/dev/null 2>&1 || { echo "jack-wedge: libjack.so.0 cannot be loaded" >&2; exit 3; }
DB=/dev/shm/jack_db-$(id -u)
[ -f "$DB/__db.001" ] || { echo "jack-wedge: libjack made no metadata database in $DB" >&2; exit 3; }
gdb -q -batch -ex 'set breakpoint pending on' -ex 'break __db_pthread_mutex_lock' -ex run -ex finish -ex kill \
  --args "$PY" -c "$OPEN" >/dev/null 2>&1 || true
# The lock must now be stale: a third libjack user hangs (and is ended here after 2 s).
if (timeout -s KILL 2 "$PY" -c "$OPEN" >/dev/null 2>&1) 2>/dev/null; then echo "jack-wedge: the metadata lock did not wedge" >&2; exit 3; fi
echo "jack-wedge: ready" >&2   # tests time what follows from here
exec "$@"
