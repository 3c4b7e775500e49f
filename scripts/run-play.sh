#!/bin/sh
# `make run`: play a pattern on DEVICE; where there is no playback device, on the simulated
# exciter instead (real-time paced, recording what it plays).
# usage: run-play.sh HAP DEVICE PATTERN
set -eu
hap=$1
device=$2
pattern=$3
if "$hap" devices -D "$device" >/dev/null 2>&1; then
  echo "playing $pattern on '$device'"
  exec "$hap" play -D "$device" --verbose "$pattern"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
sim="$root/.build/sim"
capture="$sim/$(basename "$pattern" .json).raw"
mkdir -p "$sim/config/alsa"
sed -e "s|@PLUGIN@|$sim/libasound_module_pcm_hapsim.so|" -e "s|@CAPTURE@|$capture|" \
  "$root/tools/sim-exciter/asoundrc.in" > "$sim/config/alsa/asoundrc"
echo "no playback device '$device' here (hap devices says why); playing $pattern on the simulated exciter instead"
XDG_CONFIG_HOME="$sim/config" "$hap" play -D exciter --verbose --sample-format s16 "$pattern"
echo "captured signal: $capture (48000 Hz, s16, mono, raw; e.g. sox -t raw -r 48000 -e signed -b 16 -c 1 $capture out.wav)"
