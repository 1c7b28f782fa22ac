#!/usr/bin/env bash
# `npm test`: build, typecheck, then every test against real parts. It starts the services the
# tests need and stops them afterwards:
#   - a private D-Bus session with an unlocked GNOME Keyring (the Secret Service keytar talks to),
#   - a private PulseAudio server whose default source is a null sink's monitor (a microphone that
#     tests can feed a tone into with pacat).
# Install the system packages first: bash .ci/system-deps.sh as root, sudo bash .ci/system-deps.sh otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

missing=()
for cmd in dbus-run-session gnome-keyring-daemon pulseaudio pactl pacat paplay socat sox espeak-ng nm openssl unzip mount python3 gdb unshare nsenter setpriv jackd pipewire pw-jack; do
  command -v "$cmd" >/dev/null || missing+=("$cmd")
done
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=("chromium")
if [ ${#missing[@]} -gt 0 ]; then
  # A fresh Debian machine run as root has no sudo: say the command that works for this user.
  install="bash .ci/system-deps.sh"
  [ "$(id -u)" -eq 0 ] || install="sudo $install"
  echo "npm test: missing system tools: ${missing[*]}. Install them with: $install" >&2
  exit 1
fi

mkdir -p test-results
echo "--- build"
npm run build --silent
echo "--- typecheck"
npx tsc --noEmit -p . && npx tsc --noEmit -p test/e2e
npx svelte-check --tsconfig ./src-renderer/tsconfig.json --fail-on-warnings --output human | tail -n 2

# The tests run inside test/env.sh: a private D-Bus + unlocked keyring and a private PulseAudio.
bash test/env.sh bash -c '
  status=0
  echo "--- unit and integration tests (vitest)"
  npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || status=1
  echo "--- end-to-end tests (Playwright + Chromium)"
  PLAYWRIGHT_JSON_OUTPUT_NAME=test-results/e2e.json npx playwright test --reporter=list,json || status=1
  exit $status
' || status=$?
node test/support/summary.mjs test-results/vitest.json test-results/e2e.json
exit "${status:-0}"
