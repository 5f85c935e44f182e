#!/usr/bin/env python3
"""The module import graph of a Rust crate and its cycles.

One node per module file under src; an edge a → b when a's code (outside comments and strings)
names a path into b: `use crate::…`, `use super::…`, `self::…`, a child module's name, or the same
paths written inline. A path through a `pub use` re-export counts as naming the module the item is
defined in; `#[cfg(test)]` items are left out (tests may reach anywhere). Run from the repository
root. Prints every pair of modules that import each other and every strongly
connected group of more than one module, optionally only those inside a prefix:
    python3 tools/import_cycles.py [--inside engine] [--edges]
"""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fn_lengths import blank  # noqa: E402

SRC = 'src'


def module_of(path):
    rel = os.path.relpath(path, SRC)[:-3].split(os.sep)
    if rel[-1] in ('lib', 'main', 'mod'):
        rel = rel[:-1]
    return tuple(rel)


def modules():
    mods = {}
    for d, _, files in os.walk(SRC):
        for f in files:
            if f.endswith('.rs'):
                p = os.path.join(d, f)
                mods[module_of(p)] = p
    return mods


def expand(tree):
    """`a::{b, c::{d, e}}` → [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = tree.replace(' ', '').replace('\n', '')
    i = tree.find('{')
    if i < 0:
        return [tree]
    prefix, depth, parts, cur = tree[:i], 0, [], ''
    for ch in tree[i + 1:tree.rfind('}')]:
        if ch == ',' and depth == 0:
            parts.append(cur); cur = ''
            continue
        depth += ch == '{'
        depth -= ch == '}'
        cur += ch
    parts.append(cur)
    return [x for p in parts if p for x in expand(prefix + p)]


def resolve(mods, here, segs, reexports=None):
    """The module file a path `segs` written in module `here` lands in (its longest module prefix;
    through a `pub use` re-export, the module the item comes from)."""
    if not segs:
        return None
    if segs[0] == 'crate':
        base, segs = (), segs[1:]
    elif segs[0] == 'super':
        base = here
        while segs and segs[0] == 'super':
            base, segs = base[:-1], segs[1:]
    elif segs[0] == 'self':
        base, segs = here, segs[1:]
    elif here + (segs[0],) in mods:
        base = here
    else:
        return None
    cur = base
    for s in segs:
        if cur + (s,) in mods:
            cur = cur + (s,)
        else:
            if reexports and s in reexports.get(cur, {}):
                return reexports[cur][s]
            break
    return cur


PATH = re.compile(r'(?<![A-Za-z0-9_:])((?:[A-Za-z_][A-Za-z0-9_]*::)+(?:\{[^;]*?\}(?=\s*;)|[A-Za-z_][A-Za-z0-9_]*)?)')
USE = re.compile(r'\buse\s+([^;]+);')


def without_tests(text):
    """`text` without its `#[cfg(test)]` items (test modules, helpers, imports): test code is not
    the module's imports."""
    while True:
        m = re.search(r'#\[cfg\(test\)\]', text)
        if not m:
            return text
        j = m.end()
        while j < len(text) and text[j] not in '{;':
            j += 1
        if j < len(text) and text[j] == '{':
            depth = 0
            while j < len(text):
                depth += text[j] == '{'
                depth -= text[j] == '}'
                if depth == 0:
                    break
                j += 1
        text = text[:m.start()] + text[j + 1:]


def graph():
    mods = modules()
    edges = {m: set() for m in mods}
    reexports = {}
    for m, p in mods.items():
        text = blank(open(p, encoding='utf-8').read())
        for u in re.finditer(r'\bpub\s+use\s+([^;]+);', text):
            for path in expand(u.group(1)):
                segs = [s for s in path.split('::') if s]
                t = resolve(mods, m, segs[:-1])
                if t is not None:
                    reexports.setdefault(m, {})[segs[-1]] = t
    for m, p in mods.items():
        text = blank(open(p, encoding='utf-8').read())
        text = without_tests(text)
        paths = []
        for u in USE.finditer(text):
            paths += expand(u.group(1))
        for x in PATH.finditer(USE.sub('', text)):
            paths.append(x.group(1).rstrip(':'))
        for path in paths:
            segs = [s for s in re.split(r'::', path.split(' as ')[0]) if s]
            t = resolve(mods, m, segs, reexports)
            if t is not None and t != m and t in mods and not (len(t) < len(m) and m[:len(t)] == t and t == ()):
                edges[m].add(t)
    return mods, edges


def sccs(nodes, edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in nodes:
                continue
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    args = sys.argv[1:]
    inside = ()
    if '--inside' in args:
        inside = tuple(args[args.index('--inside') + 1].split('::'))
    mods, edges = graph()
    nodes = {m for m in mods if m[:len(inside)] == inside}
    name = lambda m: '::'.join(m) or 'crate'
    if '--edges' in args:
        for m in sorted(nodes):
            print(name(m), '->', ', '.join(sorted(name(t) for t in edges[m] if t in nodes)))
    pairs = sorted({tuple(sorted((a, b))) for a in nodes for b in edges[a] if b in nodes and a in edges[b]})
    print(f'{len(pairs)} pairs of modules that import each other:')
    for a, b in pairs:
        print(f'  {name(a)} <-> {name(b)}')
    groups = [sorted(c) for c in sccs(nodes, edges) if len(c) > 1]
    print(f'{len(groups)} import cycles (strongly connected groups of modules):')
    for g in sorted(groups):
        print(f'  [{len(g)}] ' + ', '.join(name(m) for m in g))


if __name__ == '__main__':
    main()
