#!/usr/bin/env python3
"""Which child modules each parent module's `//!` doc names, and each child's one-line summary.
    python3 tools/module_docs.py [--missing] [--list PARENT_FILE]"""
import os, re, sys
SRC = 'src'

def parents():
    for d, _, files in os.walk(SRC):
        for f in sorted(files):
            if f.endswith('.rs'):
                p = os.path.join(d, f)
                text = open(p, encoding='utf-8').read()
                kids = re.findall(r'^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_0-9]+)\s*;', text, re.M)
                if kids:
                    yield p, text, kids

def child_path(parent, kid):
    base = parent[:-3] if not parent.endswith(('lib.rs', 'main.rs', 'mod.rs')) else os.path.dirname(parent)
    for c in (os.path.join(base, kid + '.rs'), os.path.join(base, kid, 'mod.rs')):
        if os.path.exists(c):
            return c

def summary(path):
    lines = []
    for l in open(path, encoding='utf-8'):
        if l.startswith('//!'):
            s = l[3:].strip()
            if not s:
                break
            lines.append(s)
        elif lines or l.strip():
            break
    text = ' '.join(lines)
    m = re.match(r'(.+?[.:;])(\s|$)', text)
    return (m.group(1) if m else text)

def main():
    args = sys.argv[1:]
    total_missing = 0
    for p, text, kids in parents():
        doc = '\n'.join(l for l in text.split('\n') if l.startswith('//!'))
        named = [k for k in kids if re.search(r'\[`' + k + r'`\]', doc)]
        missing = [k for k in kids if k not in named]
        total_missing += len(missing)
        if '--list' in args and p != args[args.index('--list') + 1]:
            continue
        print(f'{p}: {len(named)} of {len(kids)} children named in its doc')
        if '--list' in args or ('--missing' in args and missing):
            for k in (kids if '--list' in args else missing):
                c = child_path(p, k)
                print(f'//! - [`{k}`]: {summary(c) if c else "?"}')
    print(f'{total_missing} children not named in their parent\'s doc')

if __name__ == '__main__':
    main()
