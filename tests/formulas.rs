//! The formulas are split into parts, each beside the code it documents, listed by the index
//! `src/docs/FORMULAS.md` and rendered by `src/docs.rs`. These tests keep the three in step and
//! check that every citation of a part ("states.md §3", "[comm.md](crate::docs::formulas::comm) §5")
//! names a part and a section that exist.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// A part of the formulas: its path from the repository root and its text.
struct Part {
    path: PathBuf,
    text: String,
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The parts as the index lists them: "- [`name.md`](relative/path.md): what it holds."
fn parts() -> BTreeMap<String, Part> {
    let index = read(Path::new("src/docs/FORMULAS.md"));
    let mut out = BTreeMap::new();
    for line in index.lines().filter(|l| l.starts_with("- [`")) {
        let name = line["- [`".len()..]
            .split(".md`]")
            .next()
            .unwrap()
            .to_string();
        let rel = line
            .split("](")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap();
        let path = Path::new("src/docs").join(rel);
        let path: PathBuf = path.components().fold(PathBuf::new(), |mut p, c| {
            match c {
                std::path::Component::ParentDir => {
                    p.pop();
                }
                c => p.push(c),
            }
            p
        });
        assert!(
            path.ends_with(format!("{name}.md")),
            "{line}: the link names another file"
        );
        let text = read(&path);
        assert!(
            out.insert(name.clone(), Part { path, text }).is_none(),
            "{name} listed twice"
        );
    }
    out
}

/// Every file under `dir` (recursively) whose name ends with one of `exts`.
fn files(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, exts, out);
        } else if exts.iter().any(|e| path.to_string_lossy().ends_with(e)) {
            out.push(path);
        }
    }
}

/// Whether a part has a heading for section `sec` ("3" → "## 3. …", "4.1" → "### 4.1 …").
fn has_section(text: &str, sec: &str) -> bool {
    let (top, sub) = (format!("## {sec}. "), format!("### {sec} "));
    text.lines()
        .any(|l| l.starts_with(&top) || l.starts_with(&sub))
}

#[test]
fn index_lists_each_part_once_and_docs_renders_them() {
    let parts = parts();
    assert!(parts.len() >= 10, "the index lists {} parts", parts.len());
    let docs = read(Path::new("src/docs.rs"));
    for (name, part) in &parts {
        let rel = part
            .path
            .strip_prefix("src")
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let include = format!("#[doc = include_str!(\"{rel}\")]\n    pub mod {name} {{}}");
        assert!(
            docs.contains(&include),
            "src/docs.rs does not render {rel} as formulas::{name}"
        );
        assert!(part.text.starts_with("# "), "{rel} has no title");
        assert!(has_section(&part.text, "1"), "{rel} has no section 1");
    }
    // Every Markdown file of the engine, the evidence and the docs is a listed part, the index
    // or the constants (`src/scenario/fields.md` is the field table's, not a formula).
    let mut md = Vec::new();
    for dir in ["src/engine", "src/evidence", "src/docs"] {
        files(Path::new(dir), &[".md"], &mut md);
    }
    for path in md {
        let listed = parts.values().any(|p| p.path == path);
        let other = path.ends_with("docs/FORMULAS.md") || path.ends_with("docs/CONSTANTS.md");
        assert!(
            listed || other,
            "{} is not listed in src/docs/FORMULAS.md",
            path.display()
        );
    }
}

#[test]
fn each_part_names_code_that_exists() {
    for part in parts().values() {
        let title = part.text.lines().next().unwrap();
        let named: Vec<&str> = title
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|s| s.ends_with(".rs"))
            .collect();
        let shown = part.path.display();
        assert!(
            !named.is_empty() || shown.to_string().ends_with("docs/peers.md"),
            "{shown}: its title names no code"
        );
        for file in named {
            let here = part.path.parent().unwrap().join(file);
            assert!(
                Path::new("src").join(file).exists() || here.exists(),
                "{shown} names {file}, which does not exist"
            );
        }
    }
}

#[test]
fn every_citation_names_a_part_and_a_section_that_exist() {
    let parts = parts();
    let mut sources = Vec::new();
    files(Path::new("src"), &[".rs", ".md"], &mut sources);
    files(
        Path::new("tests"),
        &[".rs", "AUDIT.md", "extra.json"],
        &mut sources,
    );
    files(Path::new("tools"), &[".py"], &mut sources);
    sources.push("README.md".into());
    let mut checked = 0;
    for path in sources.iter().filter(|p| !p.ends_with("tests/formulas.rs")) {
        let text = read(path);
        let shown = path.display();
        // The index has no numbered sections: a "FORMULAS.md §8.4" is a citation from before the split.
        for stale in ["FORMULAS.md §", "FORMULAS.md) §", "FORMULAS §"] {
            assert!(
                !text.contains(stale),
                "{shown} cites \"{stale}\": cite the part instead"
            );
        }
        for (name, part) in &parts {
            for link in [
                format!("{name}.md "),
                format!("{name}.md](crate::docs::formulas::{name}) "),
            ] {
                for (at, _) in text.match_indices(&link) {
                    let rest = &text[at + link.len()..];
                    // "§3", "§3, §9, §10" or "§4.1"; a list may wrap onto a comment's next line.
                    let mut rest = rest.trim_start_matches(['\n', ' ', '/', '!']);
                    if !rest.starts_with('§') {
                        continue;
                    }
                    while let Some(after) = rest.strip_prefix('§') {
                        let sec: String = after
                            .chars()
                            .take_while(|c| c.is_ascii_digit() || *c == '.')
                            .collect();
                        let sec = sec.trim_end_matches('.');
                        assert!(
                            has_section(&part.text, sec),
                            "{shown}: {name}.md has no section §{sec}"
                        );
                        checked += 1;
                        rest = after[sec.len()..].trim_start_matches([',', ' ']);
                    }
                }
                // A link must name the module of the same part.
                let wrong = format!("{name}.md](crate::docs::formulas::");
                for (at, _) in text.match_indices(&wrong) {
                    let target = &text[at + wrong.len()..];
                    assert!(
                        target.starts_with(&format!("{name})")),
                        "{shown}: {name}.md links another part"
                    );
                }
            }
        }
    }
    assert!(
        checked > 60,
        "only {checked} citations found: the scan is broken"
    );
}
