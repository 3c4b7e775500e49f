#!/usr/bin/env python3
"""Lists the functions in Sources longer than a limit (default 60 lines), Swift and C.

`--check` exits 1 when there is one that no comment excuses: a function may be longer where the
comment just above it (or its doc comment) says why, with a line containing `long-function:`
followed by the reason (for example a parser's hot loop that splitting would slow down).

A function's length counts its lines from the declaration to its closing brace, blank lines and
comments inside it included. Strings and comments are skipped when braces are matched.
"""
import os
import re
import sys

LIMIT = 60
SWIFT_DECL = re.compile(
    r'^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|open|static|class|final|override|'
    r'mutating|nonmutating|nonisolated(?:\(unsafe\))?|@inline\(__always\)|@discardableResult|convenience|required)\s+)*'
    r'(func\s+[^\s(<]+|init[?!]?|deinit|subscript)\b')
OTHER_DECL = re.compile(r'^\s*(?:(?:public|private|fileprivate|internal|static|final|nonisolated)\s+)*(?:var|let|case|struct|enum|class|protocol|extension|typealias)\b')
C_DECL = re.compile(r'^(?:static\s+|inline\s+|__attribute__\S*\s+)*[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*\([^;]*$')


def strip(line, state):
    """The line without strings and comments; `state` carries a block comment or multi-line string."""
    out = []
    i = 0
    while i < len(line):
        if state['block']:
            end = line.find('*/', i)
            if end < 0:
                return ''.join(out)
            state['block'] = False
            i = end + 2
            continue
        if state['multi']:
            end = line.find('"""', i)
            if end < 0:
                return ''.join(out)
            state['multi'] = False
            i = end + 3
            continue
        c = line[i]
        if line.startswith('//', i):
            break
        if line.startswith('/*', i):
            state['block'] = True
            i += 2
            continue
        if line.startswith('"""', i):
            state['multi'] = True
            i += 3
            continue
        if c == '"' or (c == "'" and state['c']):
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if line[j] == '\\' else 1
            i = j + 1
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def functions(path):
    is_c = path.endswith('.c')
    state = {'block': False, 'multi': False, 'c': is_c}
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    stack = []  # (name, start line, depth at start)
    depth = 0
    pending = None
    for number, raw in enumerate(lines, 1):
        text = strip(raw, state)
        m = (C_DECL if is_c else SWIFT_DECL).match(text)
        if m and (not is_c or depth == 0):
            pending = (m.group(1), number)  # a body-less declaration before it (a protocol's) is dropped
        elif pending is not None and not is_c and OTHER_DECL.match(text):
            pending = None
        for c in text:
            if c == '{':
                if pending is not None:
                    stack.append((pending[0], pending[1], depth))
                    pending = None
                depth += 1
            elif c == '}':
                pending = None
                depth -= 1
                if stack and stack[-1][2] == depth:
                    name, start, _ = stack.pop()
                    yield name, start, number, lines
        if pending is not None and (text.rstrip().endswith(';') or (not is_c and text.strip() == '' and number > pending[1] + 3)):
            pending = None


def excused(lines, start):
    k = start - 2
    while k >= 0 and (lines[k].strip().startswith(('///', '//', '@', '/*', '*')) or lines[k].strip() == ''):
        if 'long-function:' in lines[k]:
            return True
        if lines[k].strip() == '':
            break
        k -= 1
    return False


def main():
    check = '--check' in sys.argv
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'Sources')
    found = []
    for folder, _, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(('.swift', '.c')) or name.endswith('.generated.swift'):
                continue
            path = os.path.join(folder, name)
            for fn, start, end, lines in functions(path):
                length = end - start + 1
                if length > LIMIT:
                    found.append((length, os.path.relpath(path, os.path.join(root, '..')), start, fn,
                                  excused(lines, start)))
    found.sort(reverse=True)
    bad = [f for f in found if not f[4]]
    for length, path, start, fn, ok in found:
        print(f"{length:4d} {path}:{start} {fn}{'  (excused)' if ok else ''}")
    if check and bad:
        print(f"{len(bad)} function(s) over {LIMIT} lines without a 'long-function:' comment saying why",
              file=sys.stderr)
        sys.exit(1)


main()
