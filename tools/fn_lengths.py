#!/usr/bin/env python3
"""Lengths of the Rust functions under a folder (default src), longest first.

A function runs from its `fn` line to the line of its closing brace. Comments, strings, raw
strings and char literals are blanked before braces are counted. Usage:
    python3 tools/fn_lengths.py [DIR] [--most N] [--over N]
"""
import os, re, sys

FN = re.compile(r'\bfn\s+([A-Za-z_][A-Za-z0-9_]*)')


def blank(src):
    """`src` with comments and literals replaced by spaces (newlines kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif src.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith('/*', j): depth += 1; j += 2
                elif src.startswith('*/', j): depth -= 1; j += 2
                else: j += 1
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j
        elif re.match(r'b?r#*"', src[i:i + 40]) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')):
            m = re.match(r'b?r(#*)"', src[i:])
            end = '"' + m.group(1)
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == '\\' else 1
            j += 1
            out.append(re.sub(r'[^\n]', ' ', src[i:j])); i = j
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", src[i:])
            if m:
                out.append(' ' * m.end()); i += m.end()
            else:
                out.append(c); i += 1
        else:
            out.append(c); i += 1
    return ''.join(out)


def functions(path):
    text = blank(open(path, encoding='utf-8').read())
    res = []
    for m in FN.finditer(text):
        # the body: the first `{` before any `;` at depth 0 of parentheses
        j, paren = m.end(), 0
        while j < len(text):
            ch = text[j]
            if ch in '([<': paren += 1 if ch != '<' else 0
            if ch in ')]': paren -= 1
            if ch == ';' and paren <= 0: j = -1; break
            if ch == '{' and paren <= 0: break
            j += 1
        if j < 0 or j >= len(text):
            continue
        depth, k = 0, j
        while k < len(text):
            if text[k] == '{': depth += 1
            elif text[k] == '}':
                depth -= 1
                if depth == 0: break
            k += 1
        first = text.count('\n', 0, m.start()) + 1
        last = text.count('\n', 0, k) + 1
        res.append((last - first + 1, path, first, m.group(1)))
    return res


def main():
    args = sys.argv[1:]
    most, over, root = 15, 0, 'src'
    while args:
        a = args.pop(0)
        if a == '--most': most = int(args.pop(0))
        elif a == '--over': over = int(args.pop(0))
        else: root = a
    fns = []
    for d, _, files in os.walk(root):
        for f in files:
            if f.endswith('.rs'):
                fns += functions(os.path.join(d, f))
    fns.sort(key=lambda x: (-x[0], x[1], x[2]))
    shown = [f for f in fns if f[0] > over] if over else fns[:most]
    for n, p, line, name in shown:
        print(f'{n:5} {p}:{line} {name}')


if __name__ == '__main__':
    main()
