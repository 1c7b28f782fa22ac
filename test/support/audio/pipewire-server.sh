#!/usr/bin/env bash
# Runs COMMAND through PipeWire's JACK library (pw-jack) beside a PipeWire server of its own:
#   bash test/support/audio/pipewire-server.sh COMMAND [ARGS...]
# The server runs in a fresh XDG_RUNTIME_DIR (its socket, pipewire-0, is there; nothing of the
# machine's own is touched) and is stopped after COMMAND. PIPEWIRE_SERVER=none starts no server:
# pw-jack alone, for a control. Exits with COMMAND's code; 3 if PipeWire cannot start.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: pipewire-server.sh COMMAND [ARGS...]" >&2; exit 2; }
for tool in pipewire pw-jack; do command -v "$tool" >/dev/null || { echo "pipewire-server: $tool is missing (see .ci/system-deps.sh)" >&2; exit 3; }; done
XDG_RUNTIME_DIR=$(mktemp -d)
export XDG_RUNTIME_DIR
chmod 700 "$XDG_RUNTIME_DIR"
pw_pid=
cleanup() {
  if [ -n "$pw_pid" ]; then kill "$pw_pid" 2>/dev/null || true; wait "$pw_pid" 2>/dev/null || true; fi
  rm -rf "$XDG_RUNTIME_DIR"
}
trap cleanup EXIT
if [ "${PIPEWIRE_SERVER:-pipewire}" != none ]; then
  log="$XDG_RUNTIME_DIR/pipewire.log"
  pipewire >"$log" 2>&1 &
  pw_pid=$!
  for _ in $(seq 100); do [ -S "$XDG_RUNTIME_DIR/pipewire-0" ] && break; kill -0 "$pw_pid" 2>/dev/null || break; sleep 0.1; done
  [ -S "$XDG_RUNTIME_DIR/pipewire-0" ] || { echo "pipewire-server: PipeWire did not start: $(tail -n 3 "$log" | tr '\n' ' ')" >&2; exit 3; }
fi
echo "pipewire-server: ready" >&2
code=0
pw-jack "$@" || code=$?
exit "$code"
