//! What a command is given: its arguments ([`Args`]), the files they name ([`read_file`],
//! [`load_scenario`]) and the [`USAGE`] text a missing or unknown one answers with.

use super::error::CliError;

/// Usage text.
pub const USAGE: &str = "\
paracalc: plan distributed Transformer training (memory, step time, MFU, best layout)

usage:
  paracalc estimate FILE.json [--json]          memory per stage, step time, throughput
  paracalc validate CASES.json [--json] [--calibrate] [--first-sight FILE]
                                                predicted vs published measurements; with
                                                --calibrate also calibrated on each other run;
                                                per group now vs first sight (FILE, default
                                                first_sight.json beside CASES.json)
  paracalc calibrate FILE.json --step-s S [--memory-gib G] [--json]
                                                fit the calibration section to a measured run
  paracalc search FILE.json [--gpus N] [--top K] [--json]
                                                best parallel layouts for the model and cluster
  paracalc sweep FILE.json --gpus 8,16,... [--json]
                                                throughput and scaling efficiency vs GPU count
  paracalc link FILE.json [--preset ID] [--lenient]
                                                print the share-link query for a scenario
  paracalc unlink TEXT [--lenient]              decode a share link (or its query) to JSON
  paracalc bench [FILE.json]                    engine speed: ns per estimate, layouts/s

exit codes: 0 ok, 2 bad input, 1 internal error
";

/// Reads a file into a string, mapping failures to a bad-input error naming the path.
pub(super) fn read_file(path: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::input(format!("cannot read {path}: {e}")))
}

/// Splits `args` into positional arguments and a flag lookup. Flags take a value unless listed in
/// `switches`.
pub(super) struct Args {
    /// Positional arguments in order.
    pub positional: Vec<String>,
    flags: Vec<(String, Option<String>)>,
}

impl Args {
    /// Parses `args`; `switches` are flags without a value (`--json`), `valued` take one.
    pub fn parse(args: &[String], switches: &[&str], valued: &[&str]) -> Result<Args, CliError> {
        let mut positional = Vec::new();
        let mut flags = Vec::new();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if a.starts_with("--") {
                if switches.contains(&a.as_str()) {
                    flags.push((a.clone(), None));
                } else if valued.contains(&a.as_str()) {
                    let v = it
                        .next()
                        .ok_or_else(|| CliError::input(format!("{a} needs a value")))?;
                    flags.push((a.clone(), Some(v.clone())));
                } else {
                    return Err(CliError::input(format!("unknown option {a}")));
                }
            } else {
                positional.push(a.clone());
            }
        }
        Ok(Args { positional, flags })
    }

    /// Whether switch `name` was given.
    pub fn has(&self, name: &str) -> bool {
        self.flags.iter().any(|(k, _)| k == name)
    }

    /// The value of flag `name`, if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.flags
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The number flag `name` gives, if given; a value that is not one is a bad-input error
    /// naming the flag.
    pub fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, CliError> {
        self.value(name).map(|v| number(name, v)).transpose()
    }

    /// The comma-separated numbers flag `name` gives, if given (`--gpus 8,16,32`).
    pub fn numbers<T: std::str::FromStr>(&self, name: &str) -> Result<Option<Vec<T>>, CliError> {
        self.value(name)
            .map(|v| v.split(',').map(|x| number(name, x)).collect())
            .transpose()
    }

    /// The single positional argument, or a usage error mentioning `what`.
    pub fn one(&self, what: &str) -> Result<&str, CliError> {
        match self.positional.as_slice() {
            [one] => Ok(one),
            [] => Err(CliError::input(format!("missing {what}\n\n{USAGE}"))),
            _ => Err(CliError::input(format!(
                "expected one {what}, got {}",
                self.positional.len()
            ))),
        }
    }
}

/// `text` read as a number for flag `flag`.
fn number<T: std::str::FromStr>(flag: &str, text: &str) -> Result<T, CliError> {
    let text = text.trim();
    text.parse::<T>()
        .map_err(|_| CliError::input(format!("{flag}: \"{text}\" is not a number.")))
}

/// Reads and parses a scenario file; errors name the field.
pub(super) fn load_scenario(path: &str) -> Result<crate::scenario::Scenario, CliError> {
    let text = read_file(path)?;
    crate::scenario::parse(&text).map_err(|e| CliError::input(format!("{path}: {e}")))
}
