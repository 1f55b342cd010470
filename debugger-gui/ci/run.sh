#!/usr/bin/env bash
# The real debugger window under Xvfb, driven by real key presses (xdotool), as a lecturer
# would: CityExcursions at 1920×1080 and in the projector theme at 1280×720 after a few rounds,
# Tree of Thoughts at 1280×720 with the labeled term,
# and §3.4's divergent program while a confluence check runs. Screenshots go to
# target/ci-screenshots/; it fails if no window appears, the process dies, a window is blank,
# the keys changed nothing, the window stops drawing while the confluence check runs, or fixing a
# world file does not reload the session.
# Installs what it needs (Debian, as root).
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
for c in Xvfb xdotool import convert compare xdpyinfo; do command -v "$c" >/dev/null || need+=("$c"); done
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    xvfb xauth imagemagick x11-apps x11-utils xdotool libgl1-mesa-dri libegl1 libgl1 >/dev/null
fi
opal=${OPAL:-${CARGO_TARGET_DIR:-$PWD/target}/release/opal}
[ -x "$opal" ] || cargo build --release -q -p opal-cli
shots=target/ci-screenshots
mkdir -p "$shots"
display=:$(( 90 + RANDOM % 9 ))
state=$(mktemp -d)
# A fresh profile: no remembered theme, panels or autosave from an earlier run.
export XDG_RUNTIME_DIR=$state XDG_DATA_HOME=$state OPAL_DEBUGGER_STATE=$state
# -noreset: without it the server resets when its last client leaves, and a window opened
# during the reset fails with "Failed to open connection to X server" (seen once in CI).
Xvfb "$display" -screen 0 1920x1080x24 -nolisten tcp -noreset >/dev/null 2>&1 &
xvfb=$!
app=
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null || true
  kill "$xvfb" 2>/dev/null || true
  rm -rf "$state"
}
trap cleanup EXIT
export DISPLAY=$display
for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done

fail() { echo "debugger: $1"; cat "$shots/debugger.log" 2>/dev/null | tail -20; exit 1; }

# open PROGRAM WIDTH HEIGHT [OPTION…]: starts the window at that size; sets $app and $win.
open_window() {
  LIBGL_ALWAYS_SOFTWARE=1 "$opal" debug "$1" "${@:4}" >"$shots/debugger.log" 2>&1 &
  app=$!
  win=
  for _ in $(seq 150); do
    win=$(xdotool search --name "OPAL debugger" 2>/dev/null | head -1 || true)
    [ -n "$win" ] && break
    sleep 0.2
  done
  [ -n "$win" ] || fail "no window appeared for $1"
  # No window manager here: place and size the window, give it the keyboard directly, and
  # send real key events (XTEST), not synthetic ones, which winit may ignore.
  xdotool windowmove "$win" 0 0 windowsize --sync "$win" "$2" "$3" || true
  sleep 2
  xdotool windowfocus --sync "$win"
  xdotool mousemove $(( $2 / 2 )) $(( $3 / 2 ))
}

keys() {
  for key in "$@"; do
    xdotool key "$key"
    sleep "${KEY_GAP:-0.4}"
  done
}

# shot NAME: a screenshot of the window; fails if it is blank.
shot() {
  sleep 1
  kill -0 "$app" 2>/dev/null || fail "the window died"
  import -window "$win" "$shots/$1.png"
  local colours
  colours=$(convert "$shots/$1.png" -format '%k' info:)
  echo "debugger screenshot: $shots/$1.png ($colours colours)"
  [ "$colours" -ge 50 ] || fail "the window is blank in $1"
}

close_window() {
  kill "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  app=
}

# 1. CityExcursions at 1920×1080: rounds, one chunk of the stream from the world, rounds.
open_window examples/city_excursions.opal 1920 1080
shot debugger-start
keys space space space space w space space w space space space space space space space
shot debugger-1080p
changed=$(compare -metric AE "$shots/debugger-start.png" "$shots/debugger-1080p.png" null: 2>&1 || true)
echo "debugger: $changed pixels changed after the key presses"
[ "${changed%% *}" != "0" ] || fail "the key presses did not step the program"
close_window

# 2. The projector theme at 1280×720 (F2), the same steps.
open_window examples/city_excursions.opal 1280 720
keys F2 space space space space w space space w space space space space space space space
shot debugger-720p
close_window

# 2b. Tree of Thoughts projected, the term panel shown (F4): its rows by the program's names.
# A profile of its own: the windows before it leave the theme they chose saved.
mkdir -p "$state/tot"
OPAL_DEBUGGER_STATE="$state/tot" XDG_DATA_HOME="$state/tot" \
  open_window examples/poppy_tree_of_thoughts.opal 1280 720
keys F2 F4 space space space w space space w space space w space space
shot debugger-tot-720p
close_window

# 3. §3.4's divergent program: a confluence check runs; the window keeps drawing (the progress
# moves between two screenshots), and Esc cancels it. The default budget (100 000 steps) ends
# the check within a second on a fast machine, before the first screenshot: a budget of 10^9
# keeps it running for minutes whatever the machine.
open_window examples/diverge.opal 1280 720 --max-steps 1000000000
keys F2 space space space v
sleep 0.5
shot debugger-confluence-a
sleep 1
shot debugger-confluence-b
moved=$(compare -metric AE "$shots/debugger-confluence-a.png" "$shots/debugger-confluence-b.png" null: 2>&1 || true)
echo "debugger: $moved pixels changed while the confluence check ran"
[ "${moved%% *}" != "0" ] || fail "the window did not redraw while the confluence check ran (frozen?)"
keys Escape
shot debugger-cancelled
sleep 1
shot debugger-cancelled-later
still=$(compare -metric AE "$shots/debugger-cancelled.png" "$shots/debugger-cancelled-later.png" null: 2>&1 || true)
echo "debugger: $still pixels changed in the second after Esc"
[ "${still%% *}" = "0" ] || fail "the confluence check went on after Esc"
close_window
# 4. A world file with an error opens the window on it; fixing the world file (not the
# program) reloads the session within a couple of seconds, without a key press.
printf 'extern ask\nprint (ask 1)\n' > "$state/w.opal"
printf '[ask]\nlatency_ms = -5\ndefault = "1"\n' > "$state/w.world.toml"
open_window "$state/w.opal" 1280 720
shot debugger-world-error
printf '[ask]\nlatency_ms = 5\ndefault = "1"\n' > "$state/w.world.toml"
sleep 2
shot debugger-world-fixed
fixed=$(compare -metric AE "$shots/debugger-world-error.png" "$shots/debugger-world-fixed.png" null: 2>&1 || true)
echo "debugger: $fixed pixels changed after the world file was fixed"
[ "${fixed%% *}" != "0" ] || fail "fixing the world file did not reload the session"
close_window
echo "debugger: window checks passed"
