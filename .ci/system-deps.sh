#!/usr/bin/env bash
# System packages the build and the tests need on Debian 12 / Ubuntu (run as root or with sudo).
#   socat                     pseudo-terminal pairs that act as serial boards in tests
#   udev                      udevadm, which serialport needs to list USB serial ports
#   libsecret-1-dev           keytar compiles against it during npm ci
#   dbus gnome-keyring        a real Secret Service (OS keychain) for the tests
#   pulseaudio*, libasound2-plugins  a virtual microphone for audio capture tests
#   chromium                  the browser Playwright drives (its own download is unreachable here)
#   xvfb xauth                headful browser runs
#   sox                       checks the WAV files we write; mixes noise and hum into test speech
#   espeak-ng                 speaks the words the automatic-split tests cut out of a take
#   python3 make g++          node-gyp builds of native modules
#   openssl                   makes the self-signed certificates TLS tests present (a server whose
#                             certificate cannot be verified)
#   binutils                  nm, which test/packaging/native-abi.test.ts uses to read each .node file's
#                             exported symbols (g++ pulls it in too; named here because a test needs it)
#   unzip                     reads back the model zips the test model kit writes (a second reader
#                             besides python's zipfile, so our zip writer is checked against two)
#   mount                     mount/umount: disk-full tests mount a tiny tmpfs (present on most images;
#                             named because a test needs it)
#   util-linux                unshare and nsenter: test/env.sh and the JACK-lock tests use a private
#                             /dev/shm; setpriv: the serial permission tests open a port as an
#                             unprivileged user (essential on Debian; named because tests need it)
#   gdb                       the stale-JACK-lock tests (test/support/audio/jack-wedge.sh) stop a libjack
#                             user while it holds the metadata lock and kill it there; libjack itself
#                             comes with libasound2-plugins
#   jackd2                    a real JACK server (dummy backend, in a private /dev/shm) for the tests that a
#                             running JACK is still used (test/support/audio/jack-server.sh)
#   pipewire-bin pipewire-jack  a PipeWire server of the test's own and its JACK library (pw-jack), for the
#                             test that PipeWire's JACK shim is used when its server runs (pipewire-server.sh)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  socat udev libsecret-1-dev dbus gnome-keyring \
  pulseaudio pulseaudio-utils libasound2-plugins \
  chromium xvfb xauth sox espeak-ng python3 make g++ binutils openssl unzip mount util-linux gdb jackd2 pipewire-bin pipewire-jack >/dev/null
