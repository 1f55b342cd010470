#!/usr/bin/env bash
# The real debugger window under Xvfb: `opal debug` on a bundled example, a few steps driven
# with real key presses (xdotool), a screenshot in target/ci-screenshots/, and a failure if the
# window is blank or the process died. Installs what it needs (Debian, as root).
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
for c in Xvfb xdotool import convert; do command -v "$c" >/dev/null || need+=("$c"); done
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    xvfb xauth imagemagick x11-apps xdotool libgl1-mesa-dri libegl1 libgl1 >/dev/null
fi
opal=${OPAL:-${CARGO_TARGET_DIR:-$PWD/target}/release/opal}
[ -x "$opal" ] || cargo build --release -q -p opal-cli
shots=target/ci-screenshots
mkdir -p "$shots"
display=:$(( 90 + RANDOM % 9 ))
export XDG_RUNTIME_DIR; XDG_RUNTIME_DIR=$(mktemp -d)
Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
app=
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  rm -rf "$XDG_RUNTIME_DIR"
}
trap cleanup EXIT
export DISPLAY=$display
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
# Software OpenGL (llvmpipe): there is no GPU here.
LIBGL_ALWAYS_SOFTWARE=1 "$opal" debug "${PROGRAM:-examples/city_excursions.opal}" >"$shots/debugger.log" 2>&1 &
app=$!
win=
for _ in $(seq 100); do
  win=$(xdotool search --name "OPAL debugger" 2>/dev/null | head -1 || true)
  [ -n "$win" ] && break
  sleep 0.2
done
if [ -z "$win" ]; then
  echo "debugger: no window appeared"; cat "$shots/debugger.log"; exit 1
fi
sleep 2
# No window manager here: give the window the keyboard focus directly, and send real key
# events (XTEST), not synthetic ones, which winit may ignore.
xdotool windowfocus --sync "$win"
xdotool mousemove 800 500
import -window root "$shots/debugger-start.png"
# Rounds, then resolve the pending task from the world and step on (KEYS overrides).
for key in ${KEYS:-space space space space w space space}; do
  xdotool key "$key"
  sleep ${KEY_GAP:-0.4}
done
sleep 1
import -window root "$shots/${SHOT:-debugger}.png"
if ! kill -0 "$app" 2>/dev/null; then
  echo "debugger: the window died"; cat "$shots/debugger.log"; exit 1
fi
# Blank means (almost) one colour; the debugger's panels, text and graph give thousands.
shot=$shots/${SHOT:-debugger}.png
colours=$(convert "$shot" -format '%k' info:)
echo "debugger screenshot: $shot ($colours colours)"
if [ "$colours" -lt 50 ]; then
  echo "debugger: the window is blank"; exit 1
fi
# The key presses must have stepped the program: the window changed.
changed=$(compare -metric AE "$shots/debugger-start.png" "$shot" null: 2>&1 || true)
echo "debugger: $changed pixels changed after the key presses"
if [ "${changed%% *}" = "0" ]; then
  echo "debugger: the key presses did not step the program"; exit 1
fi
