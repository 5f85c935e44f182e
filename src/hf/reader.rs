//! Reading a config's keys: the [`Reader`] every family's import reads through, and the
//! [`HfError`] it reports (a full sentence naming the field).

use crate::scenario::json::text::Node;
use crate::scenario::{printable, FfnAct, Model};
use serde_json::{Map, Value};
use std::fmt;

/// A config that could not be imported. The message is a full sentence naming the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HfError(pub String);

impl fmt::Display for HfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HfError {}

/// Reads a config's keys, recording each key it reads (`used`: the keys the notes do not
/// list as unread) and the notes the reading adds; `base` is the model the import starts from.
pub(super) struct Reader<'a> {
    /// The config object read (for Llama 4, its `text_config`).
    pub(super) obj: &'a Map<String, Value>,
    /// The keys read so far.
    pub(super) used: Vec<&'static str>,
    /// The notes the reading adds.
    pub(super) notes: Vec<String>,
    /// The model the import starts from.
    pub(super) base: &'a Model,
}

impl Reader<'_> {
    pub(super) fn opt_whole(&mut self, key: &'static str) -> Result<Option<u64>, HfError> {
        self.used.push(key);
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if n >= 1 => Ok(Some(n)),
                _ => Err(HfError(format!(
                    "{key} must be a positive whole number, got {}.",
                    clip(&Node::from(v).to_compact())
                ))),
            },
        }
    }

    pub(super) fn whole(&mut self, key: &'static str) -> Result<u64, HfError> {
        self.opt_whole(key)?
            .ok_or_else(|| HfError(format!("The config has no \"{key}\", which is needed.")))
    }

    pub(super) fn opt_bool(&mut self, key: &'static str) -> Result<Option<bool>, HfError> {
        self.used.push(key);
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(HfError(format!(
                "{key} must be true or false, got {}.",
                clip(&Node::from(v).to_compact())
            ))),
        }
    }

    /// An optional count that may be 0 or null (`first_k_dense_replace`, `q_lora_rank`).
    pub(super) fn opt_count(&mut self, key: &'static str) -> Result<Option<u64>, HfError> {
        self.used.push(key);
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                HfError(format!(
                    "{key} must be a whole number, got {}.",
                    clip(&Node::from(v).to_compact())
                ))
            }),
        }
    }

    /// The FFN activation from `key`: `silu`/`swiglu` → SwiGLU, `gelu*`/`relu` → two-GEMM MLP.
    pub(super) fn act(&mut self, key: &str, default: FfnAct) -> FfnAct {
        match self.obj.get(key).and_then(Value::as_str) {
            None => default,
            Some(a) if a.eq_ignore_ascii_case("silu") || a.eq_ignore_ascii_case("swiglu") => {
                FfnAct::Swiglu
            }
            Some(a) if a.to_ascii_lowercase().starts_with("gelu") || a == "relu" => FfnAct::Gelu,
            Some(a) => {
                self.notes.push(format!(
                    "{key} \"{}\" is not known; assumed {}.",
                    clip(a),
                    default.as_str()
                ));
                default
            }
        }
    }

    /// A model with what every family reads alike: the vocabulary, whether the output layer
    /// shares the embedding (`tied`: the family's default) and the base's sequence length, the
    /// config's context length (`context_key`) noted. The family fills in the rest.
    pub(super) fn common(
        &mut self,
        tied: bool,
        context_key: &'static str,
    ) -> Result<Model, HfError> {
        let model = Model {
            vocab: self.whole("vocab_size")?,
            seq_len: self.base.seq_len,
            tied_embeddings: self.opt_bool("tie_word_embeddings")?.unwrap_or(tied),
            ..Model::default()
        };
        self.context(context_key)?;
        Ok(model)
    }

    /// Notes the config's context length (the sequence length itself is kept).
    pub(super) fn context(&mut self, key: &'static str) -> Result<(), HfError> {
        if let Some(ctx) = self.opt_whole(key)? {
            self.notes.push(format!(
                "Context length {ctx} ({key}); the training sequence length stays {} tokens — change it in the form if you train longer sequences.",
                self.base.seq_len
            ));
        }
        Ok(())
    }
}

/// At most 40 characters of user text for a message, control characters replaced.
pub(super) fn clip(s: &str) -> String {
    printable(s, 40)
}
