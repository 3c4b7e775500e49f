#!/bin/sh
# Install hap from this unpacked release tarball (`make dist` made it; README.md beside this).
# POSIX sh; needs nothing but the usual base tools. `./install.sh --help` says what it does.
set -eu

usage() {
  cat <<'USAGE'
usage: ./install.sh [--prefix DIR] [--systemd-user-dir DIR] [--dbus-activation]

Installs hap from this folder under DIR: /usr/local when run as root, else ~/.local.
  DIR/bin/hap                   the program (Swift's runtime and Foundation linked in)
  DIR/lib/hap/                  the simulated exciter's ALSA plugin (hap play -D sim)
  DIR/share/hap/                the bundled vocabulary (patterns) and desktop theme
  DIR/share/bash-completion, DIR/share/zsh, DIR/share/fish, DIR/share/man/man1/hap.1
  hap.service                   systemd's user unit, ExecStart set to DIR/bin/hap, in
                                DIR/lib/systemd/user (for ~/.local: ~/.config/systemd/user)
A file already there is replaced (a running hap keeps its old binary until it restarts).

  --prefix DIR            install under DIR (made absolute)
  --systemd-user-dir DIR  put hap.service in DIR
  --dbus-activation       also let the session bus start 'hap serve --dbus' as feedbackd's
                          service (DIR/share/dbus-1/services/org.sigxcpu.Feedback.service)
  -h, --help              print this and exit

Then it names the Debian packages of the libraries hap loads at run time that this machine
lacks (checked with ldconfig -p): libasound2 (playing, -D sim too), libsndfile1 (sounds that
are not WAV; hap convert from FLAC, Ogg, MP3), libsoxr0 (sounds at another rate than the
output), libdbus-1-3 (hap serve --dbus), libmicrohttpd12 (hap studio). validate, info, render
and plot need none of them.
USAGE
}

fail() {
  printf 'install.sh: %s\n' "$1" >&2
  exit 2
}

prefix=
unit_dir=
dbus=
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --prefix) [ $# -ge 2 ] || fail "--prefix needs a folder"; prefix=$2; shift ;;
    --prefix=*) prefix=${1#--prefix=} ;;
    --systemd-user-dir) [ $# -ge 2 ] || fail "--systemd-user-dir needs a folder"; unit_dir=$2; shift ;;
    --systemd-user-dir=*) unit_dir=${1#--systemd-user-dir=} ;;
    --dbus-activation) dbus=1 ;;
    *) fail "unknown argument '$1' (see ./install.sh --help)" ;;
  esac
  shift
done

here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/bin/hap" ] || fail "no bin/hap beside install.sh: run the install.sh of the unpacked tarball"

if [ -z "$prefix" ]; then
  if [ "$(id -u)" = 0 ]; then prefix=/usr/local; else
    [ -n "${HOME:-}" ] || fail "HOME is not set: give --prefix DIR"
    prefix=$HOME/.local
  fi
fi
[ -n "$prefix" ] || fail "--prefix is empty"
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/
if [ -z "$unit_dir" ]; then
  # systemd's user manager reads ~/.config/systemd/user, not ~/.local/lib/systemd/user.
  if [ -n "${HOME:-}" ] && [ "$prefix" = "${HOME%/}/.local" ]; then
    unit_dir=$HOME/.config/systemd/user
  else
    unit_dir=$prefix/lib/systemd/user
  fi
fi
case $unit_dir in /*) ;; *) unit_dir=$(pwd)/$unit_dir ;; esac

# Copy FILE (relative to here) to DEST with MODE, through a temporary file renamed into place.
put() {
  mkdir -p "$(dirname "$2")"
  cp "$here/$1" "$2.tmp.$$"
  chmod "$3" "$2.tmp.$$"
  mv -f "$2.tmp.$$" "$2"
}

# Write FILE (relative to here) to DEST with its %h/.local/ paths (as shipped: a home install)
# set to the prefix, quoted where systemd and D-Bus need it, as `make install` does.
put_rewritten() {
  mkdir -p "$(dirname "$2")"
  sh "$here/unit-paths.sh" "$prefix" "$here/$1" "$2.tmp.$$"
  chmod 644 "$2.tmp.$$"
  mv -f "$2.tmp.$$" "$2"
}

count=0
files=$(cd "$here" && find bin lib/hap share -type f | LC_ALL=C sort)
while IFS= read -r f; do
  case $f in bin/*) mode=755 ;; *) mode=644 ;; esac
  put "$f" "$prefix/$f" "$mode"
  count=$((count + 1))
done <<FILES
$files
FILES
put_rewritten lib/systemd/user/hap.service "$unit_dir/hap.service"
count=$((count + 1))
if [ -n "$dbus" ]; then
  put_rewritten contrib/org.sigxcpu.Feedback.service "$prefix/share/dbus-1/services/org.sigxcpu.Feedback.service"
  count=$((count + 1))
fi

version=$("$prefix/bin/hap" --version 2>&1) || fail "the installed $prefix/bin/hap does not run: $version"
echo "installed $version into $prefix ($count files; the systemd user unit in $unit_dir)"
case :$PATH: in
  *:"$prefix/bin":*) ;;
  *) echo "note: $prefix/bin is not on your PATH" ;;
esac

# The libraries hap loads with dlopen when a command needs them; each missing one costs only
# what needs it (hap then says, in one sentence, which package to install).
ldconfig=$(command -v ldconfig 2>/dev/null || true)
for candidate in /sbin/ldconfig /usr/sbin/ldconfig; do
  [ -n "$ldconfig" ] || { [ ! -x "$candidate" ] || ldconfig=$candidate; }
done
if [ -z "$ldconfig" ] || ! libraries=$("$ldconfig" -p 2>/dev/null); then
  echo "note: cannot list the system libraries (no ldconfig); hap loads libasound2 (playing), libsndfile1, libsoxr0, libdbus-1-3 and libmicrohttpd12 (Debian's packages) when it needs them"
  exit 0
fi
missing=
need() {
  if ! printf '%s\n' "$libraries" | grep -q "^[[:space:]]*$1 "; then
    echo "missing: $2, for $3"
    missing="$missing $2"
  fi
}
need libasound.so.2 libasound2 "playing (hap play, hap serve, -D sim too)"
need libsndfile.so.1 libsndfile1 "sounds that are not WAV and hap convert from FLAC, Ogg, MP3"
need libsoxr.so.0 libsoxr0 "sounds at another rate than the output"
need libdbus-1.so.3 libdbus-1-3 "hap serve --dbus (feedbackd's D-Bus API)"
need libmicrohttpd.so.12 libmicrohttpd12 "hap studio (the pattern editor in the browser)"
if [ -n "$missing" ]; then
  echo "install them with: apt install$missing   (Debian, Ubuntu)"
else
  echo "the system libraries hap loads (libasound2, libsndfile1, libsoxr0, libdbus-1-3, libmicrohttpd12) are all here"
fi
