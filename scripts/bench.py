#!/usr/bin/env python3
"""`make bench`: hap's speed, side by side with a reference tool in the same run.

Prints figures; asserts nothing (these machines are shared and noisy).
"""
import os, statistics, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
hap = os.path.join(root, ".build/release/hap")
out = os.path.join(root, "bench/out")
os.makedirs(out, exist_ok=True)
RUNS = int(os.environ.get("BENCH_RUNS", "5"))


def run(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd once; returns (wall seconds, peak RSS in MiB, exit status)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def measure(cmd):
    results = [run(cmd) for _ in range(RUNS)]
    codes = {r[2] for r in results}
    return statistics.median(r[0] for r in results), max(r[1] for r in results), codes


def measure_shell(command):
    """Median wall time and peak RSS of a shell pipeline (stdout to /dev/null)."""
    return measure(["/bin/sh", "-c", command + " >/dev/null"])


def render_bench():
    long = os.path.join(out, "long.json")
    if not os.path.exists(long):
        print("generating", os.path.relpath(long, root), "(10 minutes of overlapping events)...", flush=True)
        subprocess.check_call([sys.executable, os.path.join(root, "scripts/gen-long-pattern.py"), long])
    bench = os.path.join(root, ".build/release/hap-bench")
    print(f"\n== render: {os.path.relpath(long, root)} (600 s), median of {RUNS} runs ==")
    loop = subprocess.run([bench, long, str(RUNS)], capture_output=True, text=True)
    print("  " + (loop.stdout.strip() or loop.stderr.strip()))
    print("  (target: at least 300 M samples/s; a C reference renderer does about 55 M here)")
    hap_time, _, hap_codes = measure_shell(f"{hap} render {long} -o - --quiet")
    sox_time, _, _ = measure_shell("sox -n -r 48000 -b 16 -t wav - synth 600 sine 170 2>/dev/null")
    if hap_codes != {0}:
        print(f"  WARNING: hap render exited {sorted(hap_codes)}")
    print(f"  hap render long.json -o - (600 s, s16)   {hap_time:7.3f} s")
    print(f"  sox synth 600 sine 170 (600 s, s16)      {sox_time:7.3f} s")
    print(f"  ratio: hap takes {hap_time / sox_time:.2f}x sox's time (target <= 0.2x)")
    wav = os.path.join(out, "long.wav")
    _, rss, _ = run([hap, "render", long, "-o", wav, "--quiet"])
    print(f"  peak memory rendering 600 s to a file: {rss:.1f} MiB (target < 50 MiB)")
    os.remove(wav)


def main():
    large = os.path.join(out, "large.ahap")
    if not os.path.exists(large):
        print("generating", os.path.relpath(large, root), "(200,000 entries)...", flush=True)
        subprocess.check_call([sys.executable, os.path.join(root, "scripts/gen-bench-pattern.py"), large])
    size_mb = os.path.getsize(large) / 1e6
    print(f"\n== validate: {os.path.relpath(large, root)}, {size_mb:.1f} MB, median of {RUNS} runs ==")
    hap_time, hap_rss, hap_codes = measure([hap, "validate", "--strict", large])
    jq_time, jq_rss, jq_codes = measure(["jq", "empty", large])
    if hap_codes != {0}:
        print(f"  WARNING: hap validate exited {sorted(hap_codes)} on the bench file")
    print(f"  hap validate --strict  {hap_time:7.3f} s  {size_mb / hap_time:7.1f} MB/s  peak {hap_rss:6.0f} MiB ({hap_rss * 1.048576 / size_mb:.1f}x the file)")
    print(f"  jq empty (parse only)  {jq_time:7.3f} s  {size_mb / jq_time:7.1f} MB/s  peak {jq_rss:6.0f} MiB")
    print(f"  ratio: hap is {jq_time / hap_time:.2f}x jq's speed (target >= 1x, aiming at 4x)")


if __name__ == "__main__":
    main()
    render_bench()
