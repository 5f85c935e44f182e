#!/usr/bin/env python3
"""First-sight predictions (issue 31): what the engine predicted for runs from a source the first
time it saw that source, before any model change was made with it in view. One append-only file,
tests/data/first_sight.json; tests/first_sight.rs checks it (digests, hash chain, coverage).

    # record the named groups' cases with a binary built from --commit
    python3 tools/first_sight.py record CASES GROUP [GROUP...] --commit SHA --how TEXT [--bin PATH]
    # a run changed after its first sight and no first-sight engine can read the new version:
    python3 tools/first_sight.py note ID --cases CASES --why TEXT
    # the hash-chain checkpoint to pin in tests/first_sight.rs after appending
    python3 tools/first_sight.py head

CASES is a file, or REV:PATH to read the cases as they were at a git revision. The binary
(default target/release/paracalc) must be built from --commit; binaries as old as the first
`validate` command work (only `validate --json` is required; `estimate --json` is used for the
predicted peak when the binary has it). A record is never rewritten: a corrected run gets a new
record under its new digest (or a note, `changes`, when it cannot get one), always from the
group's first-sight engine (the tool refuses another).

The case digest is a 64-bit FNV-1a over the canonical JSON of {"measured", "scenario"}: object
keys sorted, no spaces, strings as serde_json writes them, integers as integers, floats with 12
significant digits (Rust's `{:.11e}`). src/evidence/first_sight.rs computes the
same; the test compares the two on every case.
"""
import argparse, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "first_sight.json")
FNV_OFFSET, FNV_PRIME = 0xCBF29CE484222325, 0x100000001B3


def num(x):
    """A float as 12 significant digits, `d.ddddddddddde<exp>` (Rust's `{:.11e}`): what both
    languages agree on even where serde_json's float parsing is one unit in the last place off
    Python's."""
    m, _, e = f"{x:.11e}".partition("e")
    return f"{m}e{int(e)}"


def canon(v):
    """Canonical JSON: sorted keys, no spaces, serde_json's strings, floats as [`num`]."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return num(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(v[k])
                              for k in sorted(v)) + "}"
    raise TypeError(type(v))


def fnv(text):
    h = FNV_OFFSET
    for b in text.encode("utf-8"):
        h = ((h ^ b) * FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def digest(case):
    return fnv(canon({"measured": case.get("measured"), "scenario": case.get("scenario")}))


def chain(book):
    """Hash chain over the records, then the changes: each link hashes the previous head, a
    newline and the entry's canonical JSON."""
    head = ""
    for e in book["records"] + book.get("changes", []):
        head = fnv(head + "\n" + canon(e))
    return head


def r6(x):
    return None if x is None else float(f"{x:.6g}")


def load_cases(spec):
    if os.path.exists(spec):
        text = open(spec).read()
    else:
        text = subprocess.run(["git", "-C", ROOT, "show", spec], check=True,
                              capture_output=True, text=True).stdout
    v = json.loads(text)
    return v["cases"] if isinstance(v, dict) else v


def load_book():
    if os.path.exists(OUT):
        book = json.load(open(OUT))
    else:
        book = {"about": "", "records": []}
    book.setdefault("changes", [])
    return book


def save_book(book):
    with open(OUT, "w") as f:
        f.write("{\n  \"about\": " + json.dumps(book["about"], ensure_ascii=False))
        for key in ("records", "changes"):
            f.write(",\n  \"" + key + "\": [")
            rows = book[key]
            if rows:
                f.write("\n" + ",\n".join("    " + json.dumps(r, separators=(", ", ": "),
                                                             ensure_ascii=False)
                                          for r in rows) + "\n  ")
            f.write("]")
        f.write("\n}\n")


def evaluate(binary, cases):
    """{id: (time row, memory row, estimate JSON or None, estimate error)} from an old or new
    binary: `validate --json` rows, and `estimate --json` where the binary has it."""
    out = {}
    with tempfile.TemporaryDirectory() as d:
        sub = os.path.join(d, "cases.json")
        json.dump(cases, open(sub, "w"))
        p = subprocess.run([binary, "validate", sub, "--json"], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"validate failed: {p.stderr.strip()}")
        rows = {}
        for r in json.loads(p.stdout)["cases"]:
            rows[(r["id"], r["metric"])] = r
        for c in cases:
            sc = os.path.join(d, "s.json")
            json.dump(c["scenario"], open(sc, "w"))
            q = subprocess.run([binary, "estimate", sc, "--json"], capture_output=True, text=True)
            est, err = None, None
            if q.returncode == 0:
                try:
                    est = json.loads(q.stdout)
                    est = est if isinstance(est.get("memory"), dict) else None
                except ValueError:
                    est = None
            else:
                err = q.stderr.strip() or "rejected"
            out[c["id"]] = (rows.get((c["id"], "time")), rows.get((c["id"], "memory")),
                            rows.get((c["id"], "oom")), est, err)
    return out


def record(a):
    cases = [c for c in load_cases(a.cases) if c["group"] in a.groups]
    if a.ids:
        cases = [c for c in cases if c["id"] in a.ids]
    if not cases:
        sys.exit("no case of those groups")
    book = load_book()
    for g in a.groups:
        seen = {r["commit"] for r in book["records"] if r["group"] == g}
        if seen and seen != {a.commit}:
            sys.exit(f"{g} was first seen by {sorted(seen)}: record its runs with that engine "
                     "(a later one was shaped with the group in view), or note the change")
    have = {(r["id"], r["case_digest"]) for r in book["records"]}
    todo = [c for c in cases if (c["id"], digest(c)) not in have]
    if not todo:
        print("nothing to record")
        return
    ev = evaluate(a.bin, todo)
    for c in todo:
        t, mem, oom, est, est_err = ev[c["id"]]
        m = c["measured"]
        row_err = (t or {}).get("error") or (mem or {}).get("error") or (oom or {}).get("error")
        mem_est = (est or {}).get("memory") or {}
        fits = mem_est.get("fits")
        if fits is None and oom and oom.get("predicted") is not None:
            fits = oom["predicted"] < 0.5
        rec = {
            "id": c["id"], "group": c["group"], "case_digest": digest(c),
            "commit": a.commit, "how": a.how,
            "measured_step_s": m.get("iteration_time_s"),
            "predicted_step_s": r6(t["predicted"]) if t else None,
            "step_error_pct": r6(t["error_pct"]) if t and t.get("error_pct") is not None else None,
            "measured_memory_gib": m.get("memory_gib"),
            "memory_kind": m.get("memory_kind"),
            "predicted_memory_gib": r6(mem["predicted"]) if mem and mem.get("predicted") is not None else None,
            "memory_error_pct": r6(mem["error_pct"]) if mem and mem.get("error_pct") is not None else None,
            "oom": bool(m.get("oom")),
            "predicted_peak_gib": r6(mem_est["peak_bytes"] / 2**30) if "peak_bytes" in mem_est else None,
            "usable_gib": r6(mem_est["capacity_bytes"] / 2**30) if "capacity_bytes" in mem_est else None,
            "predicted_fits": fits,
            "error": row_err or (est_err if est is None and not (t or mem or oom) else None),
        }
        book["records"].append(rec)
    save_book(book)
    print(f"{len(todo)} records added ({len(book['records'])} in all); head {chain(book)}")


def note(a):
    case = next((c for c in load_cases(a.cases) if c["id"] == a.id), None)
    if case is None:
        sys.exit(f"no case {a.id}")
    book = load_book()
    mine = [r for r in book["records"] if r["id"] == a.id]
    if not mine:
        sys.exit(f"no record for {a.id}: record it instead")
    now = digest(case)
    if any(r["case_digest"] == now for r in mine) or any(
            ch["id"] == a.id and ch["to"] == now for ch in book["changes"]):
        print("already covered")
        return
    prev = [ch["to"] for ch in book["changes"] if ch["id"] == a.id]
    frm = prev[-1] if prev else mine[-1]["case_digest"]
    book["changes"].append({"id": a.id, "from": frm, "to": now, "why": a.why})
    save_book(book)
    print(f"note added; head {chain(book)}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("cases")
    r.add_argument("groups", nargs="+")
    r.add_argument("--commit", required=True)
    r.add_argument("--how", required=True)
    r.add_argument("--ids", nargs="*")
    r.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "paracalc"))
    n = sub.add_parser("note")
    n.add_argument("id")
    n.add_argument("--cases", required=True)
    n.add_argument("--why", required=True)
    sub.add_parser("head")
    a = ap.parse_args()
    if a.cmd == "record":
        record(a)
    elif a.cmd == "note":
        note(a)
    else:
        book = load_book()
        print(len(book["records"]), len(book["changes"]), chain(book))


if __name__ == "__main__":
    main()
