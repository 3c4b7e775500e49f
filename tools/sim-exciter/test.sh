#!/bin/sh
# Self-check of the hap simulated exciter (ALSA ioplug plugin), with aplay.
#   usage: tools/sim-exciter/test.sh        (KEEP=1 keeps the temp folder)
# Builds the plugin into a temp folder, writes an asoundrc from asoundrc.in into
# a temp XDG_CONFIG_HOME and checks: real-time pacing, byte-exact capture, the
# one-shot stall (a real underrun that aplay recovers from), and the vanishing
# device (ENODEV), plus reappearing and two other rates/formats.
# Needs: cc, libasound2-dev, alsa-utils (aplay); python3 for one extra check.
# Ends with "sim-exciter: N passed, M failed"; exit status 1 on any failure.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
PASS=0
FAIL=0

ok() { PASS=$((PASS + 1)); echo "ok   - $*"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL - $*"; }
die() { echo "error: $*" >&2; exit 1; }

command -v aplay >/dev/null 2>&1 || die "aplay not found: install alsa-utils (apt-get install alsa-utils)"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/sim-exciter.XXXXXX") || die "mktemp failed"
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$HERE/build.sh" "$TMP/lib" >/dev/null || die "building the plugin failed (see above)"
PLUGIN="$TMP/lib/libasound_module_pcm_hapsim.so"

# A private ALSA configuration: the template plus the PCMs for the fault checks.
mkdir -p "$TMP/xdg/alsa" "$TMP/home"
sed -e "s#@PLUGIN@#$PLUGIN#g" -e "s#@CAPTURE@#$TMP/exciter.raw#g" \
    "$HERE/asoundrc.in" >"$TMP/xdg/alsa/asoundrc" || die "cannot write the asoundrc"
cat >>"$TMP/xdg/alsa/asoundrc" <<EOF

pcm.exciter_exact {
    type hapsim
    capture "$TMP/exact.raw"
    stats "$TMP/exact.stats"
}
pcm.exciter_stall {
    type hapsim
    capture "$TMP/stall.raw"
    stats "$TMP/stall.stats"
    state "$TMP/stall.state"
    stall_after_frames 48000
    stall_ms 300
}
pcm.exciter_vanish {
    type hapsim
    capture "$TMP/vanish.raw"
    state "$TMP/vanish.state"
    vanish_after_frames 24000
}
pcm.exciter_reappear {
    type hapsim
    capture "$TMP/reappear.raw"
    state "$TMP/reappear.state"
    vanish_after_frames 4800
    reappear_ms 400
}
pcm.exciter_fmt {
    type hapsim
    capture "$TMP/fmt.raw"
}
EOF
export XDG_CONFIG_HOME="$TMP/xdg"
export HOME="$TMP/home"        # no ~/.asoundrc of the user's
unset ALSA_CONFIG_PATH

ns() { date +%s%N; }
# seconds between two ns stamps
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
# true if lo <= x <= hi
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
size() { wc -c <"$1" | tr -d ' '; }
# the capture starts with the input and the rest is silence (aplay pads its last chunk)
prefix_then_silence() { # input capture
    n=$(size "$1")
    [ -f "$2" ] && [ "$(size "$2")" -ge "$n" ] || return 1
    cmp -s -n "$n" "$1" "$2" || return 1
    [ "$(tail -c +"$((n + 1))" "$2" | tr -d '\000' | wc -c | tr -d ' ')" = 0 ]
}
stat_val() { awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null; }

# 2.0 s of 48 kHz S16_LE mono noise
RATE=48000
head -c $((RATE * 2 * 2)) /dev/urandom >"$TMP/in.raw"
IN_BYTES=$(size "$TMP/in.raw")

# --- 0: listed by aplay -L (snd_device_name_hint) ---------------------------
if aplay -L 2>/dev/null | grep -A1 '^exciter$' | grep -q 'hap simulated exciter (real-time paced, records what it plays)'; then
    ok "aplay -L lists 'exciter' with its description"
else
    bad "aplay -L does not list 'exciter' with its description"
fi

# --- 1 + 2: pacing and capture, through the template's 'exciter' -----------
t0=$(ns)
aplay -q -D exciter -B 100000 -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" 2>"$TMP/play.err"
rc=$?
t1=$(ns)
wall=$(secs "$t0" "$t1")
if [ $rc -ne 0 ]; then
    bad "aplay on 'exciter' failed (rc $rc): $(cat "$TMP/play.err")"
else
    played=$(awk -v b="$(size "$TMP/exciter.raw")" -v r=$RATE 'BEGIN { printf "%.3f", b / 2 / r }')
    if within "$wall" 1.8 2.2 && within "$wall" "$(awk -v p="$played" 'BEGIN { print p - 0.02 }')" 99; then
        ok "2.0 s of audio took ${wall} s wall time (device played ${played} s incl. aplay's padding)"
    else
        bad "2.0 s of audio took ${wall} s wall time; expected 2.0 s +-10% and >= ${played} s played"
    fi
    if prefix_then_silence "$TMP/in.raw" "$TMP/exciter.raw"; then
        ok "capture holds the input byte for byte ($IN_BYTES bytes; then $(( $(size "$TMP/exciter.raw") - IN_BYTES )) bytes of aplay's silence padding)"
    else
        bad "capture $TMP/exciter.raw does not match the input"
    fi
fi

# --- 2b: exact capture and stats with a client that writes exactly the input -
if command -v python3 >/dev/null 2>&1; then
    cat >"$TMP/exact.py" <<'EOF'
import ctypes as C, sys, time
a = C.CDLL("libasound.so.2")
a.snd_pcm_open.argtypes = [C.POINTER(C.c_void_p), C.c_char_p, C.c_int, C.c_int]
a.snd_pcm_set_params.argtypes = [C.c_void_p, C.c_int, C.c_int, C.c_uint, C.c_uint, C.c_int, C.c_uint]
a.snd_pcm_writei.restype = C.c_long
a.snd_pcm_writei.argtypes = [C.c_void_p, C.c_void_p, C.c_ulong]
a.snd_pcm_delay.argtypes = [C.c_void_p, C.POINTER(C.c_long)]
a.snd_pcm_recover.argtypes = [C.c_void_p, C.c_int, C.c_int]
for f in ("snd_pcm_drain", "snd_pcm_close"):
    getattr(a, f).argtypes = [C.c_void_p]
data = open(sys.argv[1], "rb").read()
frames = len(data) // 2
buf = C.create_string_buffer(data, len(data))
t_open = time.monotonic_ns()
pcm = C.c_void_p()
if a.snd_pcm_open(C.byref(pcm), b"exciter_exact", 0, 0) < 0: sys.exit("open failed")
# S16_LE (2), RW_INTERLEAVED (3), mono, 48 kHz, 20 ms latency
if a.snd_pcm_set_params(pcm, 2, 3, 1, 48000, 0, 20000) < 0: sys.exit("set_params failed")
off, delays, t_half = 0, [], None
while off < frames:
    if t_half is None and off >= frames // 2:
        t_half = time.monotonic_ns()
    n = min(480, frames - off)
    w = a.snd_pcm_writei(pcm, C.byref(buf, off * 2), n)
    if w < 0:
        sys.exit("writei: error %d" % w)
    off += w
    d = C.c_long()
    if a.snd_pcm_delay(pcm, C.byref(d)) == 0: delays.append(d.value)
a.snd_pcm_drain(pcm)
a.snd_pcm_close(pcm)
t_end = time.monotonic_ns()
print("t_open_ns %d" % t_open)
print("wall %.3f" % ((t_end - t_open) / 1e9))
print("max_delay %d" % max(delays))
# paced while writing, not only in drain: half the data is accepted after ~1 s
print("half %.3f" % ((t_half - t_open) / 1e9))
EOF
    if python3 "$TMP/exact.py" "$TMP/in.raw" >"$TMP/exact.out" 2>&1; then
        t_open=$(stat_val "$TMP/exact.out" t_open_ns)
        wall=$(stat_val "$TMP/exact.out" wall)
        half=$(stat_val "$TMP/exact.out" half)
        first=$(stat_val "$TMP/exact.stats" first_write_ns)
        lat=$(awk -v a="$t_open" -v b="${first:-0}" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
        if cmp -s "$TMP/in.raw" "$TMP/exact.raw" &&
           [ "$(stat_val "$TMP/exact.stats" frames)" = $((IN_BYTES / 2)) ] &&
           [ "$(stat_val "$TMP/exact.stats" xruns)" = 0 ] &&
           [ "$(stat_val "$TMP/exact.stats" format)" = S16_LE ] &&
           [ "$(stat_val "$TMP/exact.stats" rate)" = $RATE ] &&
           within "$wall" 1.8 2.2 && within "$half" 0.88 1.08 && within "$lat" 0 500 &&
           within "$(stat_val "$TMP/exact.out" max_delay)" 1 960; then
            ok "exact client (20 ms buffer): capture byte-identical, ${wall} s wall (half written at ${half} s), stats ok, first write ${lat} ms after open"
        else
            bad "exact client: capture/stats/timing wrong: $(tr '\n' ' ' <"$TMP/exact.out") | $(tr '\n' ' ' <"$TMP/exact.stats" 2>/dev/null)"
        fi
    else
        bad "exact client failed: $(cat "$TMP/exact.out")"
    fi
else
    echo "skip - exact-capture client (python3 not found)"
fi

# --- 3: one-shot stall -> real underrun, aplay recovers and finishes ---------
t0=$(ns)
aplay -D exciter_stall -B 100000 -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" >"$TMP/stall.out" 2>&1
rc=$?
t1=$(ns)
wall=$(secs "$t0" "$t1")
if [ $rc -eq 0 ] && grep -q 'underrun!!!' "$TMP/stall.out" &&
   [ "$(stat_val "$TMP/stall.stats" xruns)" = 1 ] &&
   prefix_then_silence "$TMP/in.raw" "$TMP/stall.raw" && within "$wall" 2.2 3.0; then
    ok "stall: aplay reported '$(grep 'underrun!!!' "$TMP/stall.out" | head -n 1)', recovered and finished in ${wall} s; 1 xrun in stats; capture intact"
else
    bad "stall: rc $rc, ${wall} s, xruns $(stat_val "$TMP/stall.stats" xruns); aplay said: $(cat "$TMP/stall.out")"
fi
aplay -D exciter_stall -B 100000 -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" >"$TMP/stall2.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && ! grep -q 'underrun' "$TMP/stall2.out" && [ "$(stat_val "$TMP/stall.stats" xruns)" = 0 ]; then
    ok "stall is one-shot: a second run with the same state file plays without underrun"
else
    bad "second stall run: rc $rc, aplay said: $(cat "$TMP/stall2.out")"
fi

# --- 4: vanishing device -> ENODEV after N frames, stays gone ----------------
t0=$(ns)
aplay -D exciter_vanish -B 100000 -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" >"$TMP/vanish.out" 2>&1
rc=$?
t1=$(ns)
wall=$(secs "$t0" "$t1")
if [ $rc -ne 0 ] && grep -q 'No such device' "$TMP/vanish.out" &&
   [ "$(size "$TMP/vanish.raw")" = 48000 ] && cmp -s -n 48000 "$TMP/in.raw" "$TMP/vanish.raw" &&
   within "$wall" 0.3 0.7; then
    ok "vanish: aplay failed after 24000 frames (${wall} s, paced) with '$(grep 'No such device' "$TMP/vanish.out" | head -n 1)'"
else
    bad "vanish: rc $rc, ${wall} s, capture $(size "$TMP/vanish.raw") bytes (want 48000); aplay said: $(cat "$TMP/vanish.out")"
fi
aplay -D exciter_vanish -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" >"$TMP/vanish2.out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q 'open error: No such device' "$TMP/vanish2.out"; then
    ok "vanish: reopening fails with ENODEV (reappear_ms -1: never comes back)"
else
    bad "vanish: reopening should fail with ENODEV: rc $rc, aplay said: $(cat "$TMP/vanish2.out")"
fi

# --- 4b: reappear_ms: gone for a while, then back for good -------------------
aplay -q -D exciter_reappear -B 100000 -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" >"$TMP/re1.out" 2>&1
rc1=$?
aplay -q -D exciter_reappear -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" >"$TMP/re2.out" 2>&1
rc2=$?
sleep 0.5
aplay -q -D exciter_reappear -B 100000 -t raw -f S16_LE -r $RATE -c 1 "$TMP/in.raw" >"$TMP/re3.out" 2>&1
rc3=$?
if [ $rc1 -ne 0 ] && [ $rc2 -ne 0 ] && grep -q 'No such device' "$TMP/re2.out" && [ $rc3 -eq 0 ] &&
   prefix_then_silence "$TMP/in.raw" "$TMP/reappear.raw"; then
    ok "reappear_ms 400: open fails right after the vanish, succeeds 0.5 s later and does not vanish again"
else
    bad "reappear: rc $rc1/$rc2/$rc3 (want !0/!0/0): $(cat "$TMP/re1.out" "$TMP/re2.out" "$TMP/re3.out")"
fi

# --- 5: other rates and formats ----------------------------------------------
for spec in "FLOAT_LE 8000 2 8" "FLOAT_LE 192000 2 8" "S24_3LE 44100 2 6" "S32_LE 96000 8 32"; do
    # shellcheck disable=SC2086
    set -- $spec
    head -c $(($2 * $4 / 2)) /dev/urandom >"$TMP/fmt.in"    # 0.5 s
    t0=$(ns)
    aplay -q -D exciter_fmt -B 100000 -t raw -f "$1" -r "$2" -c "$3" "$TMP/fmt.in" >"$TMP/fmt.out" 2>&1
    rc=$?
    t1=$(ns)
    wall=$(secs "$t0" "$t1")
    played=$(awk -v b="$(size "$TMP/fmt.raw")" -v f="$4" -v r="$2" 'BEGIN { printf "%.3f", b / f / r }')
    if [ $rc -eq 0 ] && prefix_then_silence "$TMP/fmt.in" "$TMP/fmt.raw" &&
       within "$wall" "$(awk -v p="$played" 'BEGIN { print p - 0.02 }')" "$(awk -v p="$played" 'BEGIN { print p * 1.1 + 0.02 }')"; then
        ok "$1 ${2} Hz ${3} ch: 0.5 s took ${wall} s (played ${played} s), capture exact"
    else
        bad "$1 ${2} Hz ${3} ch: rc $rc, ${wall} s for ${played} s played; aplay said: $(cat "$TMP/fmt.out")"
    fi
done

echo "sim-exciter: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
