#!/bin/sh
# unit-paths.sh PREFIX IN OUT: writes IN (contrib/hap.service or contrib/org.sigxcpu.Feedback.service)
# to OUT with each of its paths under %h/.local/ (as shipped: a home install) set under PREFIX,
# one argument each however PREFIX is spelled. Used by `make install` and the tarball's install.sh.
#
# A path that holds nothing but letters, digits and / . _ - + , : @ ~ is written as it is. Any
# other is written in double quotes, a backslash and a quote escaped with a backslash: systemd
# (ExecStart=, systemd.service(5) "Command lines") and D-Bus (Exec=, read with shell quoting)
# both take one argument from it, spaces and all. In a systemd unit, % is written %% and $ is
# written $$ wherever it is (systemd expands specifiers and variables even inside quotes); a
# D-Bus service file expands neither.
set -eu
[ $# -eq 3 ] || { echo "usage: unit-paths.sh PREFIX IN OUT" >&2; exit 2; }
prefix=${1%/}
dbus=
case $(sed -n '1,40p' "$2") in *"[D-BUS Service]"*) dbus=1 ;; esac
awk -v prefix="$prefix" -v dbus="$dbus" '
  function quoted(path,    plain, out, i, c) {
    plain = path ~ /^[A-Za-z0-9\/._+,:@~-]*$/
    out = ""
    for (i = 1; i <= length(path); i++) {
      c = substr(path, i, 1)
      if (!dbus && (c == "%" || c == "$")) out = out c c
      else if (!plain && (c == "\\" || c == "\"")) out = out "\\" c
      else out = out c
    }
    return plain ? out : "\"" out "\""
  }
  /^[ \t]*#/ { print; next }
  {
    line = $0; out = ""
    while (match(line, /%h\/\.local\/[^ \t]*/)) {
      rest = substr(line, RSTART + 10, RLENGTH - 10)
      out = out substr(line, 1, RSTART - 1) quoted(prefix "/" rest)
      line = substr(line, RSTART + RLENGTH)
    }
    print out line
  }' "$2" > "$3"
