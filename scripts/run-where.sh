#!/bin/sh
# The end of `make run`: where the hap just built is, and how to type 'hap' anywhere (the
# README's examples do): `make install PREFIX=~/.local`, with ~/.local/bin on the PATH.
# usage: run-where.sh HAP   (the built binary; only looked at, never run)
set -eu
case $1 in
/*) hap=$1 ;;
*) hap=$PWD/$1 ;;
esac
size=$(du -h "$hap" 2>/dev/null | cut -f1) || size=
echo "hap is built: $hap${size:+ ($size)}"
if found=$(command -v hap 2>/dev/null) && [ -n "$found" ]; then
  echo "'hap' on your PATH is $found; 'make install PREFIX=DIR' replaces it with this build (DIR/bin/hap)"
  exit 0
fi
echo "'hap' is not on your PATH yet. To type 'hap' anywhere, as the README's examples do:"
echo "  make install PREFIX=~/.local      # the binary in ~/.local/bin, completions, man page, the bundled patterns"
case ":$PATH:" in
*":$HOME/.local/bin:"*) ;;
*)
  echo "and put ~/.local/bin on your PATH (it is not), e.g. in ~/.profile:"
  echo "  export PATH=\"\$HOME/.local/bin:\$PATH\""
  ;;
esac
echo "(or run it where it is: $hap --help)"
