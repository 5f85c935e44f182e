//! The constants registry (`src/docs/CONSTANTS.md`) cannot drift from the code: every `const`
//! item of `src/engine/**/*.rs` (outside `#[cfg(test)]`) with a number in its value has a row
//! with the same file, name and value; every row names a constant that exists; the
//! per-generation kernel efficiencies equal `Efficiency::of`; every number written in a
//! function body other than 0, 1 and 2 is on the registry's list of such numbers with how many
//! times it is written and why it is no model constant; and the counts by kind that the README
//! and the app state are the table's.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::docs::constants::{BODY_NUMBERS, BY_KIND};
use paracalc::engine::time::compute::{Efficiency, Generation};
use std::path::Path;

const REGISTRY: &str = "src/docs/CONSTANTS.md";
/// Why a number written in a function body is no model constant.
const BODY_KINDS: [&str; 5] = ["unit", "count", "index", "definition", "registered"];
const KINDS: [&str; 4] = [
    "specification",
    "micro-benchmark",
    "end-to-end",
    "definition",
];

/// One row of the registry.
struct Row {
    name: String,
    file: String,
    value: String,
    kind: String,
}

/// The cells of a table row, split on `|` not escaped as `\|`.
fn cells(l: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut prev = ' ';
    for ch in l.trim().trim_matches('|').chars() {
        if ch == '|' && prev != '\\' {
            cells.push(cell.trim().to_string());
            cell.clear();
        } else {
            cell.push(ch);
        }
        prev = ch;
    }
    cells.push(cell.trim().to_string());
    cells
}

/// The cells of the registry's rows that start with `start`, each checked to have `n` cells.
fn table(start: &str, n: usize) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(REGISTRY).expect("the registry");
    text.lines()
        .filter(|l| l.starts_with(start))
        .map(|l| {
            let c = cells(l);
            assert_eq!(c.len(), n, "{REGISTRY}: a row needs {n} cells: {l}");
            c
        })
        .collect()
}

fn rows() -> Vec<Row> {
    table("| `", 6)
        .into_iter()
        .map(|cells| {
            let tick = |s: &str| s.trim_matches('`').to_string();
            Row {
                name: tick(&cells[0]),
                file: cells[1].clone(),
                value: tick(&cells[2]),
                kind: cells[4].clone(),
            }
        })
        .collect()
}

/// `(file, name, value)` of every numeric `const` item of the engine, values with their
/// whitespace collapsed.
fn code_constants() -> Vec<(String, String, String)> {
    let files = engine_files();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        for (at, rest) in items(body, false) {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let after = &body[at..];
            let Some(colon) = after.find(':') else {
                continue;
            };
            let Some(eq) = after[colon..].find('=') else {
                continue;
            };
            let value_start = colon + eq + 1;
            let Some(semi) = after[value_start..].find(';') else {
                continue;
            };
            let value = after[value_start..value_start + semi]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if value.chars().any(|c| c.is_ascii_digit()) {
                out.push((f.clone(), name, value));
            }
        }
    }
    out
}

/// Every source file of the engine, sorted.
fn engine_files() -> Vec<String> {
    let mut files = Vec::new();
    walk(Path::new("src/engine"), &mut files);
    files.push("src/engine.rs".into());
    files.sort();
    files
}

fn walk(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p.to_string_lossy().replace('\\', "/"));
        }
    }
}

#[test]
fn every_engine_constant_is_in_the_registry_with_its_value() {
    let rows = rows();
    let mut problems = Vec::new();
    for (file, name, value) in code_constants() {
        match rows.iter().find(|r| r.file == file && r.name == name) {
            None => problems.push(format!(
                "{file}: `{name}` = `{value}` is not in {REGISTRY}. Add the row\n\
                 | `{name}` | {file} | `{value}` | UNIT | KIND | SOURCE |\n\
                 with its unit, its kind (one of {KINDS:?}: end-to-end if it was chosen where \
                 published training runs sit) and its source in a few words, and update the \
                 counts in src/docs.rs (constants::BY_KIND), README.md and the app's \
                 definitions card follow from them"
            )),
            Some(r) if r.value != value => problems.push(format!(
                "{file}: `{name}` is `{value}` in the code but `{}` in {REGISTRY}: update the \
                 row's value (and its source if the reason changed)",
                r.value
            )),
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_registry_row_names_a_constant_of_the_code() {
    let code = code_constants();
    for r in rows() {
        assert!(
            KINDS.contains(&r.kind.as_str()),
            "{}: kind {}",
            r.name,
            r.kind
        );
        if let Some(rest) = r.name.strip_prefix("Efficiency::of(") {
            let (gen, field) = rest.split_once(").").expect("Efficiency::of(Gen).field");
            let g = match gen {
                "Volta" => Generation::Volta,
                "Ampere" => Generation::Ampere,
                "Hopper" => Generation::Hopper,
                "Blackwell" => Generation::Blackwell,
                other => panic!("{}: unknown generation {other}", r.name),
            };
            let e = Efficiency::of(g);
            let code = match field {
                "gemm" => e.gemm,
                "gemm_fp32" => e.gemm_fp32,
                "gemm_fp8" => e.gemm_fp8,
                "flash_attention" => e.flash_attention,
                "kernel_s" => e.kernel_s,
                "exp_per_s" => e.exp_per_s,
                "hbm" => e.hbm,
                other => panic!("{}: unknown field {other}", r.name),
            };
            let want: f64 = r.value.parse().expect("a number");
            assert!(
                (code - want).abs() <= 1e-12 * want.abs(),
                "{}: {REGISTRY} says {want}, compute.rs says {code}: update the row",
                r.name
            );
        } else {
            assert!(
                code.iter().any(|c| c.0 == r.file && c.1 == r.name),
                "{REGISTRY}: `{}` ({}) is no constant of the code any more: remove its row",
                r.name,
                r.file
            );
        }
    }
    // Every field of every generation is listed.
    let eff = rows()
        .iter()
        .filter(|r| r.name.starts_with("Efficiency::of("))
        .count();
    assert_eq!(eff, 4 * 7, "4 generations × 7 fields of Efficiency");
}

#[test]
fn the_counts_by_kind_are_the_tables_and_the_readme_states_them() {
    let rows = rows();
    for (kind, n) in BY_KIND {
        let count = rows.iter().filter(|r| r.kind == kind).count();
        assert_eq!(
            count, n,
            "{kind}: the registry has {count}, src/docs.rs constants::BY_KIND says {n}"
        );
    }
    readme_states(&BY_KIND, "the registry's counts");
}

/// Asserts that the README states `counts` as "n kind, n kind, …".
fn readme_states(counts: &[(&str, usize)], what: &str) {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let sentence = counts
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        readme.contains(&sentence),
        "README.md must state {what} as \"{sentence}\""
    );
}

/// `s` with comments, string and character literals and attributes blanked (newlines kept), so
/// only code is left.
fn code_only(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let end = if rest.starts_with(b"//") {
            i + rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            i + 2 + s[i + 2..].find("*/").map_or(rest.len(), |e| e + 2)
        } else if rest.starts_with(b"r#\"") || rest.starts_with(b"r\"") {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let open = 2 + hashes;
            i + open
                + s[i + open..]
                    .find(&close)
                    .map_or(rest.len(), |e| e + close.len())
        } else if rest[0] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            j + 1
        } else if rest[0] == b'\'' && (rest.get(1) == Some(&b'\\') || rest.get(2) == Some(&b'\'')) {
            i + 2 + s[i + 2..].find('\'').map_or(rest.len(), |e| e + 1)
        } else if rest.starts_with(b"#[") || rest.starts_with(b"#![") {
            let mut depth = 0;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            j + 1
        } else {
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end;
    }
    String::from_utf8(out).expect("ASCII blanks keep UTF-8")
}

/// Where each `const` item of `s` (and `static` item, with `statics`) named in capitals starts,
/// with its text after the keyword.
fn items(s: &str, statics: bool) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in s.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let t = line.trim_start();
        let consts = [
            "pub const ",
            "pub(crate) const ",
            "pub(super) const ",
            "const ",
        ];
        let statics: &[&str] = if statics {
            &["pub static ", "static "]
        } else {
            &[]
        };
        let rest = consts.iter().chain(statics).find_map(|p| t.strip_prefix(p));
        if let Some(rest) = rest.filter(|r| r.starts_with(|c: char| c.is_ascii_uppercase())) {
            out.push((start + line.len() - t.len(), rest));
        }
    }
    out
}

/// `s` (already [`code_only`]) with every `const` and `static` item blanked: those are the
/// registry's table.
fn without_items(s: &str) -> String {
    let mut out = s.as_bytes().to_vec();
    for (start, _) in items(s, true) {
        let mut depth = 0i32;
        let mut j = start;
        while j < s.len() {
            match s.as_bytes()[j] {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b';' if depth <= 0 => break,
                _ => {}
            }
            j += 1;
        }
        for c in &mut out[start..=j.min(s.len() - 1)] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    String::from_utf8(out).expect("ASCII blanks keep UTF-8")
}

/// The numeric literals of `code` (as written, without a type suffix), skipping tuple fields
/// (`x.0`) and the parts of identifiers.
fn literals(code: &str) -> Vec<String> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let prev = if i == 0 { b' ' } else { b[i - 1] };
        if !b[i].is_ascii_digit() || prev.is_ascii_alphanumeric() || prev == b'_' || prev == b'.' {
            i += 1;
            continue;
        }
        let start = i;
        if b[i..].starts_with(b"0x") {
            i += 2;
            while i < b.len() && (b[i].is_ascii_hexdigit() || b[i] == b'_') {
                i += 1;
            }
        } else {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                i += 1;
            }
            // A fraction, not a range (`0..3`) or a method call (`2.max(x)`).
            if i + 1 < b.len() && b[i] == b'.' && b[i + 1].is_ascii_digit() {
                i += 1;
                while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
                    i += 1;
                }
            }
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    i = j;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
        }
        let text = code[start..i].trim_end_matches('_').to_string();
        // The type suffix (`3u8`, `1.0_f64`) is not part of the number.
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        out.push(text);
    }
    out
}

/// Whether a literal is plain arithmetic: 0, 1 or 2.
fn trivial(lit: &str) -> bool {
    lit.replace('_', "")
        .parse::<f64>()
        .is_ok_and(|v| v == 0.0 || v == 1.0 || v == 2.0)
}

/// `(file, literal, times written)` of every number other than 0, 1 and 2 written in the
/// function bodies of the engine (outside `#[cfg(test)]`, `const` and `static` items).
fn body_numbers() -> Vec<(String, String, usize)> {
    let files = engine_files();
    let mut out: Vec<(String, String, usize)> = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        for lit in literals(&without_items(&code_only(body))) {
            if trivial(&lit) {
                continue;
            }
            match out.iter_mut().find(|x| x.0 == f && x.1 == lit) {
                Some(x) => x.2 += 1,
                None => out.push((f.clone(), lit, 1)),
            }
        }
    }
    out
}

/// The registry's list of numbers written in function bodies: `(file, literal, times, kind)`.
fn body_rows() -> Vec<(String, String, usize, String)> {
    table("| src/", 5)
        .into_iter()
        .map(|c| {
            let times = c[2]
                .parse()
                .unwrap_or_else(|_| panic!("{REGISTRY}: times in {c:?}"));
            (
                c[0].clone(),
                c[1].trim_matches('`').to_string(),
                times,
                c[3].clone(),
            )
        })
        .collect()
}

#[test]
fn every_number_in_a_function_body_is_listed_with_why_it_is_no_model_constant() {
    let rows = body_rows();
    let mut problems = Vec::new();
    for (file, lit, n) in body_numbers() {
        match rows.iter().find(|r| r.0 == file && r.1 == lit) {
            None => problems.push(format!(
                "{file}: the number `{lit}` is written {n} time(s) in function bodies and is not \
                 in {REGISTRY}. A model constant (a rate, an efficiency, a threshold, a size from \
                 a data sheet or a benchmark) becomes a named `const` with its source and a row \
                 of the constants table; a unit conversion, an exact count of a formula, an index \
                 or a definition gets the row\n| {file} | `{lit}` | {n} | KIND | WHY |\nwith KIND \
                 one of {BODY_KINDS:?}"
            )),
            Some(r) if r.2 != n => problems.push(format!(
                "{file}: `{lit}` is written {n} time(s) in function bodies, {REGISTRY} says {}: \
                 if the new one is a model constant, name it; otherwise update the count",
                r.2
            )),
            Some(_) => {}
        }
    }
    let found = body_numbers();
    for r in &rows {
        assert!(
            BODY_KINDS.contains(&r.3.as_str()),
            "{}: {} kind {}",
            r.0,
            r.1,
            r.3
        );
        if !found.iter().any(|f| f.0 == r.0 && f.1 == r.1) {
            problems.push(format!(
                "{REGISTRY}: `{}` is no longer written in {}: remove its row",
                r.1, r.0
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_body_scan_sees_numbers_and_only_numbers() {
    let code = code_only(
        "fn f(x: f64) -> f64 { // 7.5 in a comment\n let s = \"9 in a string\"; let c = '3';\n \
         #[allow(x, 4)] let y = x.0 + 3u8 as f64 * 1.5e9 + 0.25_f64; for i in 0..=3 {} 2.max(5) }\n",
    );
    let lits = literals(&without_items(&code));
    assert_eq!(lits, ["3", "1.5e9", "0.25", "0", "3", "2", "5"]);
    let items = without_items(
        "const A: f64 = 3.5;\nfn g() -> f64 { 4.5 }\npub const B: [f64; 2] = [\n 6.0, 7.0,\n];\n",
    );
    assert_eq!(literals(&items), ["4.5"]);
    assert!(trivial("2.0") && trivial("1") && !trivial("3"));
}

#[test]
fn the_body_numbers_by_kind_are_the_lists_and_the_readme_states_them() {
    let rows = body_rows();
    for (kind, n) in BODY_NUMBERS {
        let count: usize = rows.iter().filter(|r| r.3 == kind).map(|r| r.2).sum();
        assert_eq!(
            count, n,
            "{kind}: the registry lists {count} numbers in function bodies, src/docs.rs constants::BODY_NUMBERS says {n}"
        );
    }
    readme_states(&BODY_NUMBERS, "the numbers in function bodies");
}
