//! Where the built-in presets' numbers come from: `static/sources.json`, one entry per model
//! preset ([`crate::presets::MODEL_PRESETS`]: the sources of the model's shape and of the run's
//! setup) and per GPU preset ([`crate::scenario::GPU_PRESETS`]: the source of its figures, its
//! caveats, the source of its host link).
//!
//! The texts are read by people, never by the engine, and only when they unfold a "Where …
//! comes from" panel; so the web app fetches the file then (`app::hooks::use_sources`) instead
//! of carrying the texts in its bundle (about 6 KB gzip). Natively the file is compiled in
//! ([`builtin`]); tests check that every preset has its entry and no entry lacks a preset.

use serde_json::Value;

/// The file's URL, next to index.html (relative: works under any sub-path).
pub const SOURCES_URL: &str = "sources.json";

/// The sources file, read.
#[derive(Clone, Debug, PartialEq)]
pub struct Sources(Value);

/// A model preset's sources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModelSources<'a> {
    /// Where the architecture numbers come from.
    pub model: &'a str,
    /// Where the setup (batch, layout, cluster) comes from ("paracalc's choice" when not a
    /// published run).
    pub run: &'a str,
}

/// A GPU preset's sources.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GpuSources<'a> {
    /// Where the figures come from.
    pub source: &'a str,
    /// Caveats ("" when none).
    pub notes: &'a str,
    /// Where the GPU↔host link figure ([`crate::scenario::GpuSpec::host_link_gbps`]) comes from.
    pub host_link: &'a str,
}

/// Reads the sources file; the error names the file.
pub fn parse(text: &str) -> Result<Sources, String> {
    let v = crate::scenario::json::parse::parse(text)
        .map_err(|e| format!("sources.json could not be read: {}", e.message))?;
    if !(v.get("presets").is_some_and(Value::is_object)
        && v.get("gpus").is_some_and(Value::is_object))
    {
        return Err("sources.json could not be read: no \"presets\" and \"gpus\" tables".into());
    }
    Ok(Sources(v))
}

/// The sources file compiled into the native binary (tests and the command line).
pub fn builtin() -> Result<Sources, String> {
    parse(include_str!("../static/sources.json"))
}

impl Sources {
    /// The text `key` of entry `id` of `table` ("" when absent).
    fn text(&self, table: &str, id: &str, key: &str) -> Option<&str> {
        let entry = self.0.get(table)?.get(id)?;
        Some(entry.get(key).and_then(Value::as_str).unwrap_or(""))
    }

    /// Model preset `id`'s sources.
    pub fn preset(&self, id: &str) -> Option<ModelSources<'_>> {
        Some(ModelSources {
            model: self.text("presets", id, "model")?,
            run: self.text("presets", id, "run")?,
        })
    }

    /// GPU preset `id`'s sources.
    pub fn gpu(&self, id: &str) -> Option<GpuSources<'_>> {
        Some(GpuSources {
            source: self.text("gpus", id, "source")?,
            notes: self.text("gpus", id, "notes")?,
            host_link: self.text("gpus", id, "host_link")?,
        })
    }

    /// The ids of `table` ("presets" or "gpus").
    pub fn ids(&self, table: &str) -> Vec<&str> {
        self.0
            .get(table)
            .and_then(Value::as_object)
            .map(|m| m.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets::MODEL_PRESETS;
    use crate::scenario::GPU_PRESETS;

    #[test]
    fn every_preset_has_its_sources_and_every_entry_a_preset() {
        let s = builtin().unwrap();
        for p in MODEL_PRESETS {
            let got = s.preset(p.id).unwrap_or_else(|| panic!("{}", p.id));
            assert!(!got.model.is_empty() && !got.run.is_empty(), "{}", p.id);
        }
        for g in GPU_PRESETS {
            let got = s.gpu(g.id).unwrap_or_else(|| panic!("{}", g.id));
            assert!(
                !got.source.is_empty() && !got.host_link.is_empty(),
                "{}",
                g.id
            );
        }
        let mut presets: Vec<&str> = MODEL_PRESETS.iter().map(|p| p.id).collect();
        let mut gpus: Vec<&str> = GPU_PRESETS.iter().map(|g| g.id).collect();
        let (mut sp, mut sg) = (s.ids("presets"), s.ids("gpus"));
        for v in [&mut presets, &mut gpus, &mut sp, &mut sg] {
            v.sort_unstable();
        }
        assert_eq!(sp, presets);
        assert_eq!(sg, gpus);
        // A known entry, read through: DeepSeek-V3's GPU and its report.
        assert!(s
            .gpu("h800-sxm5-80gb")
            .unwrap()
            .source
            .contains("2412.19437"));
        assert!(s
            .preset("deepseek-v3")
            .unwrap()
            .model
            .contains("config.json"));
    }

    #[test]
    fn a_file_without_its_tables_is_an_error_naming_it() {
        assert!(parse("{}").unwrap_err().contains("sources.json"));
        assert!(parse("[").unwrap_err().contains("sources.json"));
    }
}
