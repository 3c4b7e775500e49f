#!/usr/bin/env python3
"""Writes tools/static-link/startup-order.txt: the code the static hap runs as it starts, for the
linker to put together (gold's --section-ordering-file; `make static` passes it).

A command's start touches a few hundred kilobytes of code spread over the binary's 12 MB of
text: each 64 KiB the kernel maps at a page fault (fault-around) holds a little of it, and a
fault costs about 2 us on this machine. Put together, they take fewer pages: `hap render` of a
short clip faulted 286 times, 248 with the order (`make bench`'s startup section).

The list is every function of the binary that valgrind's callgrind sees run in a few common
commands (--version, validate, render of a pattern and of a .haptic clip, play on the simulated
exciter, fire to a service on it), sorted by name. Names that no longer exist when the code
changes are skipped by the linker, and new functions are simply not ordered: run this again
(`python3 scripts/startup-order.py`, after `make static sim`; it needs valgrind) when start-up
code moves.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
hap = os.path.join(root, ".build/static/release/hap")
plugin = os.path.join(root, ".build/sim/libasound_module_pcm_hapsim.so")
target = os.path.join(root, "tools/static-link/startup-order.txt")


def functions_of(binary):
    """The binary's function symbols."""
    out = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    return {parts[2] for parts in (line.split(" ", 2) for line in out.splitlines())
            if len(parts) == 3 and parts[1] in "tTwW"}


def callgrind(args, env, folder, name):
    """Runs hap with args under callgrind; returns the function names it saw run."""
    out = os.path.join(folder, name + ".callgrind")
    run = subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", hap] + args,
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)
    # A command that failed ran another path than the one to order (valgrind passes its status on).
    if run.returncode != 0:
        tail = "\n".join([line for line in run.stderr.splitlines() if not line.startswith("==")][-3:])
        sys.exit(f"startup-order: hap {' '.join(args)} exited {run.returncode} under callgrind:\n{tail}")
    names = set()
    with open(out, errors="replace") as file:
        for line in file:
            match = re.match(r"c?fn=\(\d+\) (\S+)", line)
            if match:
                names.add(match.group(1).split("'")[0])
    return names


def main():
    for path, how in [(hap, "make static"), (plugin, "make sim")]:
        if not os.path.exists(path):
            sys.exit(f"startup-order: {os.path.relpath(path, root)} is missing; run '{how}' first")
    if subprocess.run(["sh", "-c", "command -v valgrind"], stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("startup-order: valgrind is missing (Debian: apt install valgrind)")
    env = dict(os.environ, HAP_SIM_PLUGIN=plugin)
    seen = set()
    with tempfile.TemporaryDirectory() as folder:
        env["XDG_RUNTIME_DIR"] = folder
        clip = os.path.join(folder, "tick.haptic")
        subprocess.run([hap, "convert", os.path.join(root, "patterns/tick.json"), "-o", clip, "--quiet"], check=True)
        correct = os.path.join(root, "patterns/correct.json")
        runs = {
            "version": ["--version"],
            "validate": ["validate", correct],
            "render": ["render", correct, "-o", os.path.join(folder, "c.wav"), "--quiet"],
            "render-clip": ["render", clip, "-o", os.path.join(folder, "t.wav"), "--quiet"],
            "play": ["play", os.path.join(root, "patterns/tick.json"), "-D", f"sim:CAPTURE={folder}/p.wav"],
        }
        for name, args in runs.items():
            seen |= callgrind(args, env, folder, name)
        sock = os.path.join(folder, "hap.sock")
        service = subprocess.Popen(
            [hap, "serve", "-D", f"sim:CAPTURE={folder}/s.wav", "--socket", sock, "--vocabulary",
             os.path.join(root, "patterns")], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(sock) and time.monotonic() < deadline:
                time.sleep(0.05)
            seen |= callgrind(["fire", "tick", "--socket", sock], env, folder, "fire")
        finally:
            service.terminate()
            service.wait()
    ordered = sorted(seen & functions_of(hap))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target + ".tmp", "w") as file:
        file.writelines(f".text.{name}\n" for name in ordered)
    os.replace(target + ".tmp", target)
    print(f"startup-order: {len(ordered)} functions in {os.path.relpath(target, root)}")


if __name__ == "__main__":
    main()
