#!/bin/sh
# `make run`: play a pattern on DEVICE. A device named on purpose (DEVICE=..., or $HAP_DEVICE)
# must open: if it does not, say why ('hap devices -D' says) and fail. With no device named,
# play on ALSA's default device, or, where there is no playback device, on hap's simulated
# exciter (-D sim: real-time paced, recording what it plays; --verbose says where).
# usage: run-play.sh HAP [DEVICE] PATTERN   (an empty DEVICE names none)
set -eu
hap=$1
device=${2:-${HAP_DEVICE:-}}
pattern=$3
if [ -n "$device" ]; then
  if ! reason=$("$hap" devices -D "$device" 2>&1); then
    printf '%s\n' "$reason" >&2
    echo "hap: cannot play on '$device', the device you named; 'make run' without DEVICE plays on the simulated exciter when there is no playback device" >&2
    exit 2
  fi
  echo "playing $pattern on '$device'"
  exec "$hap" play -D "$device" --verbose "$pattern"
fi
if "$hap" devices -D default >/dev/null 2>&1; then
  echo "playing $pattern on 'default'"
  exec "$hap" play -D default --verbose "$pattern"
fi
echo "no playback device here (hap devices says why); playing $pattern on the simulated exciter (-D sim) instead"
exec "$hap" play -D sim --verbose --sample-format s16 "$pattern"
