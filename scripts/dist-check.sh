#!/bin/sh
# `make dist-check`: prove that the tarball `make dist` wrote runs without Swift.
#   usage: scripts/dist-check.sh TARBALL [REFERENCE_HAP]
# Unpacks TARBALL into a temporary folder and, in a mount namespace where the Swift toolchain
# (/opt/swift, or $HAP_HIDE) is hidden under an empty tmpfs, checks the unpacked hap: it links no
# Swift library, runs, plays on -D sim with the tarball's own plugin (the capture is not empty),
# validates $HAP_CORPUS/ahap exactly as REFERENCE_HAP (default .build/static/release/hap, run
# outside the namespace) does (the same JSON document and exit status; the corpus holds invalid
# files on purpose), validates its bundled vocabulary cleanly, and install.sh installs a hap that
# runs. One line per check; exit 1 when any fails, 2 when it cannot check (no namespace, say).
# Without the corpus its check is skipped, unless HAP_REQUIRE_CORPUS=1 (.ci/run sets it).
set -eu

if [ "${1:-}" = --inside ]; then
  inside=1
  shift
else
  inside=
fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 TARBALL [REFERENCE_HAP]" >&2
  exit 2
fi

# ---- inside the namespace: the checks, on the unpacked folder $1, with the work folder $2 ----
if [ -n "$inside" ]; then
  top=$1
  work=$2
  hide=${HAP_HIDE:-/opt/swift}
  failures=0
  ok() { printf 'ok    %s\n' "$1"; }
  bad() { printf 'FAIL  %s\n' "$1"; failures=$((failures + 1)); }
  skip() { printf 'skip  %s\n' "$1"; }

  if [ -d "$hide" ]; then
    mount -t tmpfs -o ro,size=4k tmpfs "$hide" || { echo "FAIL  cannot hide $hide (mount tmpfs refused)"; exit 2; }
  fi
  if [ -n "$(ls -A "$hide" 2>/dev/null)" ] || command -v swift >/dev/null 2>&1; then
    bad "toolchain hidden: $hide still lists files, or swift is on PATH ($(command -v swift || true))"
  else
    ok "toolchain hidden: $hide is empty and no swift on PATH"
  fi
  hap=$top/bin/hap
  cd "$work"

  # 1. No Swift library linked, nor C++'s (libc and libm only).
  if ! linked=$(ldd "$hap" 2>&1); then
    bad "ldd bin/hap: $linked"
  elif printf '%s\n' "$linked" | grep -q -i -e 'libswift' -e 'libFoundation' -e 'lib_Foundation' -e 'libdispatch' -e 'libBlocksRuntime' -e 'libstdc++' -e 'libgcc_s' -e 'not found'; then
    bad "ldd bin/hap names a Swift or C++ library, or a missing one: $(printf '%s\n' "$linked" | grep -i -e swift -e Foundation -e dispatch -e Blocks -e 'libstdc++' -e 'libgcc_s' -e 'not found' | tr -s ' \t\n' ' ')"
  else
    ok "ldd bin/hap: $(printf '%s\n' "$linked" | awk '{print $1}' | grep -v -e '^linux-vdso' -e '^/' | tr '\n' ' ')(no Swift or C++ library)"
  fi

  # 2. It runs.
  if version=$("$hap" --version 2>&1); then ok "hap --version: $version"; else bad "hap --version failed: $version"; fi

  # 3. Plays on the simulated exciter found beside it (lib/hap), capturing into its own runtime folder.
  pattern=$top/share/hap/patterns/correct.json
  mkdir -p "$work/run" && chmod 700 "$work/run"
  if report=$(XDG_RUNTIME_DIR=$work/run "$hap" play -D sim --verbose "$pattern" 2>&1); then
    capture=$(printf '%s\n' "$report" | sed -n 's/^capture[[:space:]]*\([^ ]*\).*/\1/p' | head -n 1)
    size=$(wc -c <"$capture" 2>/dev/null || echo 0)
    if [ -n "$capture" ] && [ "$size" -gt 44 ]; then
      ok "hap play -D sim share/hap/patterns/correct.json: exit 0, captured $size bytes to ${capture#"$work"/}"
    else
      bad "hap play -D sim: exit 0 but no capture (file '${capture:-none named}', $size bytes): $(printf '%s' "$report" | tail -n 3 | tr '\n' ' ')"
    fi
  else
    bad "hap play -D sim share/hap/patterns/correct.json: exit $?: $(printf '%s' "$report" | tail -n 3 | tr '\n' ' ')"
  fi

  # 4. The corpus: the same JSON document and exit status as the reference binary.
  if [ -f "$work/reference.status" ]; then
    set +e
    "$hap" validate --format json "$HAP_CORPUS/ahap" >"$work/unpacked.json" 2>"$work/unpacked.err"
    status=$?
    set -e
    expected=$(cat "$work/reference.status")
    summary=$(sed -n 's/^],"summary":\({"files":[0-9]*,[^[]*\)"rules".*/\1/p' "$work/unpacked.json" | sed 's/,$/}/')
    if [ "$status" = "$expected" ] && cmp -s "$work/unpacked.json" "$work/reference.json"; then
      ok "hap validate --format json \$HAP_CORPUS/ahap: exit $status and the same JSON as the built hap; ${summary:-no summary}"
    else
      bad "hap validate --format json \$HAP_CORPUS/ahap: exit $status (built hap: $expected), JSON $(cmp -s "$work/unpacked.json" "$work/reference.json" && echo same || echo differs); ${summary:-no summary}"
    fi
  else
    skip "hap validate --format json \$HAP_CORPUS/ahap: $(cat "$work/reference.skip")"
  fi

  # 5. The bundled vocabulary is valid.
  if out=$("$hap" validate "$top/share/hap/patterns" 2>&1); then
    ok "hap validate share/hap/patterns: exit 0, $(printf '%s\n' "$out" | grep ' checked' | head -n 1)"
  else
    bad "hap validate share/hap/patterns: exit $?: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
  fi

  # 6. install.sh into a temporary prefix; the installed hap runs, finds its plugin, has its unit.
  prefix=$work/prefix
  if out=$(HOME=$work/home sh "$top/install.sh" --prefix "$prefix" 2>&1); then
    unit=$prefix/lib/systemd/user/hap.service
    if ! installed=$("$prefix/bin/hap" --version 2>&1); then
      bad "install.sh --prefix: the installed hap does not run: $installed"
    elif ! probe=$("$prefix/bin/hap" devices -D sim 2>&1); then
      bad "install.sh --prefix: the installed hap does not open -D sim: $probe"
    elif ! grep -q "^ExecStart=$prefix/bin/hap serve --vocabulary $prefix/share/hap/patterns\$" "$unit"; then
      bad "install.sh --prefix: hap.service's ExecStart is not the prefix's: $(grep ExecStart= "$unit" 2>&1)"
    elif ! "$prefix/bin/hap" validate --quiet "$prefix/share/hap/patterns" >/dev/null 2>&1; then
      bad "install.sh --prefix: the installed vocabulary does not validate"
    else
      ok "install.sh --prefix: $(printf '%s\n' "$out" | head -n 1 | sed "s|$work/||g"); $installed opens -D sim; unit and vocabulary in place"
    fi
  else
    bad "install.sh --prefix failed: $(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"
  fi

  if [ "$failures" -gt 0 ]; then
    echo "dist-check: $failures check(s) failed"
    exit 1
  fi
  echo "dist-check: the unpacked tarball runs without the Swift toolchain"
  exit 0
fi

# ---- outside: unpack, run the reference, enter the namespace ----
tarball=$1
root=$(cd "$(dirname "$0")/.." && pwd)
reference=${2:-$root/.build/static/release/hap}
[ -f "$tarball" ] || { echo "dist-check: no tarball at $tarball (make dist makes it)" >&2; exit 2; }
command -v unshare >/dev/null || { echo "dist-check: unshare (util-linux) is needed to hide the Swift toolchain" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/hap-dist-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

tar -xzf "$tarball" -C "$work"
name=$(basename "$tarball" .tar.gz)
top=$work/$name
set -- "$work"/*/
if [ $# -ne 1 ] || [ ! -d "$top" ]; then
  echo "FAIL  tarball layout: expected one top folder $name/, found: $(cd "$work" && ls -d -- */ | tr '\n' ' ')"
  exit 1
fi
missing=
for f in bin/hap lib/hap/libasound_module_pcm_hapsim.so share/hap/patterns/correct.json \
  share/bash-completion/completions/hap share/zsh/site-functions/_hap share/fish/vendor_completions.d/hap.fish \
  share/man/man1/hap.1 lib/systemd/user/hap.service README.md install.sh; do
  [ -s "$top/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
  echo "FAIL  tarball layout: $name/ lacks$missing"
  exit 1
fi
echo "ok    tarball layout: $name/ with bin/hap, lib/hap plugin, vocabulary, completions, man page, unit, README.md, install.sh ($(du -h "$tarball" | cut -f1))"

corpus=${HAP_CORPUS:-$root/../shared/corpus}
if [ -d "$corpus/ahap" ]; then
  [ -x "$reference" ] || { echo "dist-check: no reference hap at $reference (make build makes it)" >&2; exit 2; }
  set +e
  "$reference" validate --format json "$corpus/ahap" >"$work/reference.json" 2>/dev/null
  echo $? >"$work/reference.status"
  set -e
elif [ "${HAP_REQUIRE_CORPUS:-}" = 1 ]; then
  echo "FAIL  the shared corpus is missing at $corpus/ahap (set HAP_CORPUS)"
  exit 1
else
  echo "no corpus at $corpus/ahap" >"$work/reference.skip"
fi

# A clean environment: no HAP_SIM_PLUGIN (the Makefile exports the build tree's), no toolchain
# on PATH, nothing preloaded; the unpacked hap must find everything beside itself.
clean_env() {
  env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin HOME="$work/home" LANG=C.UTF-8 \
    HAP_CORPUS="$corpus" HAP_HIDE="${HAP_HIDE:-/opt/swift}" "$@"
}
mkdir -p "$work/home"
script=$root/scripts/dist-check.sh
# As root, a mount namespace; otherwise one in a user namespace where we map to root.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  clean_env unshare -m --propagation private sh "$script" --inside "$top" "$work"
elif unshare -r -m true 2>/dev/null; then
  clean_env unshare -r -m --propagation private sh "$script" --inside "$top" "$work"
else
  reason=$(unshare -m true 2>&1 || true)
  echo "FAIL  cannot hide the Swift toolchain: unshare is not permitted here (${reason:-no reason given}); run as root, or allow unprivileged user namespaces"
  exit 2
fi
