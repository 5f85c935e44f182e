//! The constants registry (`src/docs/CONSTANTS.md`) cannot drift from the code: every `const`
//! item of `src/engine/**/*.rs` (outside `#[cfg(test)]`) with a number in its value has a row
//! with the same file, name and value; every row names a constant that exists; the
//! per-generation kernel efficiencies equal `Efficiency::of`; and the counts by kind that the
//! README and the app state are the table's.
#![cfg(not(target_arch = "wasm32"))]

use paracalc::docs::constants::BY_KIND;
use paracalc::engine::time::compute::{Efficiency, Generation};
use std::path::Path;

const REGISTRY: &str = "src/docs/CONSTANTS.md";
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

fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(REGISTRY).expect("the registry");
    text.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            // Cells split on `|` not escaped as `\|`.
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
            assert_eq!(cells.len(), 6, "{REGISTRY}: a row needs 6 cells: {l}");
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
    let mut files = Vec::new();
    walk(Path::new("src/engine"), &mut files);
    files.push("src/engine.rs".into());
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let body = text.split("#[cfg(test)]").next().unwrap_or("");
        let mut offset = 0;
        for line in body.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let t = line.trim_start();
            let rest = [
                "pub const ",
                "pub(crate) const ",
                "pub(super) const ",
                "const ",
            ]
            .iter()
            .find_map(|p| t.strip_prefix(p));
            let Some(rest) = rest else { continue };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
                continue;
            }
            let after = &body[start + (line.len() - t.len())..];
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
    let readme = std::fs::read_to_string("README.md").unwrap();
    let sentence = BY_KIND
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        readme.contains(&sentence),
        "README.md must state the registry's counts as \"{sentence}\""
    );
}
