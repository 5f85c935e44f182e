//! Small helpers for the sentences the engine, the CLI and the app write.

/// `s` with its first letter in upper case ("on those runs …" → "On those runs …").
pub fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::capitalized;

    #[test]
    fn first_letter_only() {
        assert_eq!(
            capitalized("on those runs it was 3 % shorter"),
            "On those runs it was 3 % shorter"
        );
        assert_eq!(capitalized("ébauche"), "Ébauche");
        assert_eq!(capitalized(""), "");
    }
}
