#!/bin/sh
# Build the hap simulated exciter ALSA plugin.
#   usage: tools/sim-exciter/build.sh OUTDIR
# Produces OUTDIR/libasound_module_pcm_hapsim.so. Load it with an asoundrc
# made from asoundrc.in (pcm_type.hapsim { lib "/abs/path.so" }).
set -eu

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUTDIR=$1
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}

if ! command -v "$CC" >/dev/null 2>&1; then
    echo "error: C compiler '$CC' not found (install gcc, e.g. apt-get install gcc)" >&2
    exit 1
fi

# The ioplug SDK header comes with the ALSA development package.
if ! printf '#include <alsa/asoundlib.h>\n#include <alsa/pcm_ioplug.h>\n' \
        | "$CC" -E -x c - >/dev/null 2>&1; then
    echo "error: <alsa/pcm_ioplug.h> not found: install libasound2-dev (apt-get install libasound2-dev)" >&2
    exit 1
fi

mkdir -p "$OUTDIR"
# -DPIC is required: without it alsa's headers reference snd_dlsym_start and
# loading fails with "undefined symbol: snd_dlsym_start".
# -z nodelete keeps the process-global one-shot state (stall done, vanish time)
# alive if alsa-lib unloads and reloads the module between opens.
"$CC" -O2 -fPIC -DPIC -shared -Wall -Wextra -pthread -Wl,-z,nodelete \
    -o "$OUTDIR/libasound_module_pcm_hapsim.so" "$HERE/hap_sim_exciter.c" -lasound
echo "built $OUTDIR/libasound_module_pcm_hapsim.so"
