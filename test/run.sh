#!/usr/bin/env bash
# `npm test`: build, typecheck, then every test against real parts. It starts the services the
# tests need and stops them afterwards:
#   - a private D-Bus session with an unlocked GNOME Keyring (the Secret Service keytar talks to),
#   - a private PulseAudio server whose default source is a null sink's monitor (a microphone that
#     tests can feed a tone into with pacat).
# Install the system packages first: sudo bash .ci/system-deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

missing=()
for cmd in dbus-run-session gnome-keyring-daemon pulseaudio pactl pacat socat sox; do
  command -v "$cmd" >/dev/null || missing+=("$cmd")
done
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=("chromium")
if [ ${#missing[@]} -gt 0 ]; then
  echo "npm test: missing system tools: ${missing[*]}. Install them with: sudo bash .ci/system-deps.sh" >&2
  exit 1
fi

mkdir -p test-results
echo "--- build"
npm run build --silent
echo "--- typecheck"
npx tsc --noEmit -p . && npx tsc --noEmit -p test/e2e
npx svelte-check --tsconfig ./src-renderer/tsconfig.json --fail-on-warnings --output human | tail -n 2

# Everything below runs inside one private session bus so the keyring and its secrets die with it.
export TEST_RUN_DIR
TEST_RUN_DIR=$(mktemp -d)
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
  pactl info >/dev/null || { echo "PulseAudio did not start; see $PA_DIR/pa.log" >&2; exit 1; }

  status=0
  echo "--- unit and integration tests (vitest)"
  npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || status=1
  echo "--- end-to-end tests (Playwright + Chromium)"
  PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/e2e.json npx playwright test --reporter=list,json || status=1
  exit $status
' || status=$?
rm -rf "$TEST_RUN_DIR"
node test/support/summary.mjs test-results/vitest.json test-results/e2e.json
exit "${status:-0}"
