#!/usr/bin/env python3
"""Records first-sight predictions: what the engine, as it is, predicts for runs it has never
been shaped on (issue 31). Appends one record per case of the named groups to
tests/data/first_sight.json; never rewrites a record (tests/first_sight.rs checks that).

    python3 tools/first_sight.py CASES.json GROUP [GROUP...] --commit SHA --how TEXT [--bin PATH]

The binary (default target/release/paracalc) must be built from --commit. Each record carries
the case's digest (sha256 of its canonical scenario + measured JSON), so a later correction of
a run is recorded as a new first sight of the corrected run, not as an edit of the old one.
"""
import argparse, hashlib, json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "data", "first_sight.json")


def digest(case):
    body = json.dumps({"scenario": case["scenario"], "measured": case["measured"]},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()[:16]


def r6(x):
    return None if x is None else float(f"{x:.6g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("groups", nargs="+")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--how", required=True)
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "paracalc"))
    a = ap.parse_args()
    cases = [c for c in json.load(open(a.cases)) if c["group"] in a.groups]
    if not cases:
        sys.exit("no case of those groups")
    with tempfile.TemporaryDirectory() as d:
        sub = os.path.join(d, "cases.json")
        json.dump(cases, open(sub, "w"))
        val = json.loads(subprocess.run([a.bin, "validate", sub, "--json"], check=True,
                                        capture_output=True, text=True).stdout)
        rows = {}
        for r in val["cases"]:
            rows[(r["id"], r["metric"])] = r
        book = json.load(open(OUT)) if os.path.exists(OUT) else {"about": "", "records": []}
        have = {(r["id"], r["case_digest"]) for r in book["records"]}
        added = 0
        for c in cases:
            dg = digest(c)
            if (c["id"], dg) in have:
                continue
            sc = os.path.join(d, "s.json")
            json.dump(c["scenario"], open(sc, "w"))
            p = subprocess.run([a.bin, "estimate", sc, "--json"], capture_output=True, text=True)
            est = json.loads(p.stdout) if p.returncode == 0 else None
            m = c["measured"]
            t = rows.get((c["id"], "time"))
            mem = rows.get((c["id"], "memory"))
            rec = {
                "id": c["id"], "group": c["group"], "case_digest": dg,
                "commit": a.commit, "how": a.how,
                "measured_step_s": m.get("iteration_time_s"),
                "predicted_step_s": r6(t["predicted"]) if t else None,
                "step_error_pct": r6(t["error_pct"]) if t and t.get("error_pct") is not None else None,
                "measured_memory_gib": m.get("memory_gib"),
                "memory_kind": m.get("memory_kind"),
                "predicted_memory_gib": r6(mem["predicted"]) if mem else None,
                "memory_error_pct": r6(mem["error_pct"]) if mem and mem.get("error_pct") is not None else None,
                "oom": bool(m.get("oom")),
                "predicted_peak_gib": r6(est["memory"]["peak_bytes"] / 2**30) if est else None,
                "usable_gib": r6(est["memory"]["capacity_bytes"] / 2**30) if est else None,
                "predicted_fits": est["memory"]["fits"] if est else None,
                "error": None if est else (p.stderr.strip() or "rejected"),
            }
            book["records"].append(rec)
            added += 1
        with open(OUT, "w") as f:
            f.write("{\n  \"about\": " + json.dumps(book["about"]) + ",\n  \"records\": [\n")
            f.write(",\n".join("    " + json.dumps(r, separators=(", ", ": ")) for r in book["records"]))
            f.write("\n  ]\n}\n")
        print(f"{added} records added ({len(book['records'])} in all)")


if __name__ == "__main__":
    main()
