#!/usr/bin/env bash
# Runs a command inside the real parts the tests need, and stops them afterwards:
#   - a private D-Bus session with an unlocked GNOME Keyring (the Secret Service keytar talks to),
#   - a private PulseAudio server whose default source is a null sink's monitor (a microphone that
#     tests can feed a tone into with pacat).
# Usage: bash test/env.sh npx vitest run test/integration/audio-capture.test.ts
# test/run.sh (npm test) runs the whole suite through it.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: bash test/env.sh COMMAND [ARGS...]" >&2; exit 2; }
# A private /dev/shm (a fresh tmpfs in a mount namespace of its own) for the whole run: the run
# starts with no JACK metadata (/dev/shm/jack_db-<uid>) or other shared-memory state, and whatever
# it leaves there (a red run included) ends with it, so it can never wedge the next run or the
# machine's own audio (issue 30). Without root/unshare the tests run beside the machine's /dev/shm;
# they still never load libjack there (the app keeps it out unless a JACK server runs).
if [ "${CAPTURE_DESK_TEST_SHM:-}" != private ] && [ "$(id -u)" = 0 ] && unshare --mount --propagation private true 2>/dev/null; then
  export CAPTURE_DESK_TEST_SHM=private
  exec unshare --mount --propagation private bash -c '
    mount -t tmpfs -o mode=1777 capture-desk-test-shm /dev/shm || { echo "test/env.sh: could not mount a private /dev/shm" >&2; exit 1; }
    exec bash "$0" "$@"' "$0" "$@"
fi
[ "${CAPTURE_DESK_TEST_SHM:-}" = private ] || echo "test/env.sh: no private /dev/shm (needs root and unshare); the tests use the machine's own" >&2
export TEST_RUN_DIR
TEST_RUN_DIR=$(mktemp -d)
# A daemon still shutting down may write into the folder while it is removed ("Directory not
# empty"): that must never turn a green run red, so the clean-up cannot fail the script.
LOAD_PID=
if [ "${LOAD:-0}" != 0 ]; then
  # LOAD=N: the tests run beside N busy loops and a disk writer (test/support/background-load.sh).
  bash "$(dirname "$0")/support/background-load.sh" "$LOAD" &
  LOAD_PID=$!
fi
trap '[ -z "$LOAD_PID" ] || kill "$LOAD_PID" 2>/dev/null; rm -rf "$TEST_RUN_DIR" 2>/dev/null || { sleep 1; rm -rf "$TEST_RUN_DIR" 2>/dev/null; } || true' EXIT
# Everything runs inside one private session bus so the keyring and its secrets die with it.
dbus-run-session -- bash -c '
  set -euo pipefail
  export XDG_DATA_HOME="$TEST_RUN_DIR/xdg-data"   # keyring files: throwaway (HOME stays: ~/.npmrc matters)
  mkdir -p "$XDG_DATA_HOME"
  eval "$(printf capture-desk-test | gnome-keyring-daemon --unlock --components=secrets)"
  export GNOME_KEYRING_CONTROL

  export XDG_RUNTIME_DIR="$TEST_RUN_DIR/runtime"; mkdir -m 700 -p "$XDG_RUNTIME_DIR"
  PA_DIR="$TEST_RUN_DIR/pulse"; mkdir -p "$PA_DIR"
  cat > "$PA_DIR/test.pa" <<PA
load-module module-native-protocol-unix auth-anonymous=1 socket=$PA_DIR/native
load-module module-null-sink sink_name=testmic rate=48000
set-default-sink testmic
set-default-source testmic.monitor
PA
  pulseaudio -n -F "$PA_DIR/test.pa" --daemonize=no --exit-idle-time=-1 --log-target=file:"$PA_DIR/pa.log" &
  PA_PID=$!
  trap "kill $PA_PID 2>/dev/null || true" EXIT
  export PULSE_SERVER="unix:$PA_DIR/native" CAPTURE_DESK_TEST_SINK=testmic
  for _ in $(seq 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
  pactl info >/dev/null || { echo "PulseAudio did not start; see $PA_DIR/pa.log" >&2; cat "$PA_DIR/pa.log" >&2; exit 1; }
  set +e
  "$@"
  status=$?
  # The app never loads libjack without a JACK server: JACK metadata here means something did.
  if [ "${CAPTURE_DESK_TEST_SHM:-}" = private ] && ls -d /dev/shm/jack_db-* >/dev/null 2>&1; then
    echo "test/env.sh: the tests left JACK metadata in their private /dev/shm ($(ls -d /dev/shm/jack_db-* | tr "\n" " ")); it ends with this run" >&2
  fi
  exit $status
' env-sh "$@"
