//! `${VAR}` and `${VAR:-default}` expansion in downstream server settings,
//! done when a server is first started, never at build time.
//!
//! The values expanded this way are often secrets (tokens in headers, URLs
//! or arguments), and they can come back in text a client sees: a
//! connection error quoting a URL, a crashed server's stderr, a downstream
//! error message: [`expand_env`] remembers them as secrets, which
//! [`redact`](crate::redact) puts the `${VAR}` back for.

/// Why a setting's `${VAR}` could not be expanded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpandError {
    /// A `${` with no `}` after it, in the setting `input`.
    Unterminated {
        /// The setting as written.
        input: String,
    },
    /// `${name}` has no default, and the variable `name` is not set.
    Unset {
        /// The variable's name.
        name: String,
    },
}

impl std::fmt::Display for ExpandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unterminated { input } => write!(f, "unterminated `${{` in `{input}`"),
            Self::Unset { name } => write!(f, "environment variable `{name}` is not set"),
        }
    }
}

impl std::error::Error for ExpandError {}

/// Expands `${VAR}` / `${VAR:-default}` in `input` using `lookup`. An unset
/// variable without a default is an error naming it. A `$` not followed by
/// `{` is kept as it is.
pub fn expand_with(
    input: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(input.len());
    let mut rest = input;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(ExpandError::Unterminated {
                input: input.to_owned(),
            });
        };
        let body = &after[..end];
        let (name, default) = match body.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (body, None),
        };
        match (lookup(name), default) {
            (Some(value), _) if !value.is_empty() || default.is_none() => out.push_str(&value),
            (_, Some(default)) => out.push_str(default),
            (None, None) => {
                return Err(ExpandError::Unset {
                    name: name.to_owned(),
                });
            }
            (Some(value), None) => out.push_str(&value),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Expands against the process environment, remembering the values as
/// secrets ([`remember`](crate::remember)).
pub fn expand_env(input: &str) -> Result<String, ExpandError> {
    expand_with(input, |name| {
        let value = std::env::var(name).ok();
        if let Some(value) = &value {
            crate::remember(name, value);
        }
        value
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cret".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn expands_set_unset_and_defaults() {
        assert_eq!(
            expand_with("Bearer ${TOKEN}", env).unwrap(),
            "Bearer s3cret"
        );
        assert_eq!(expand_with("${NOPE:-dflt}/x", env).unwrap(), "dflt/x");
        assert_eq!(expand_with("${EMPTY:-dflt}", env).unwrap(), "dflt");
        assert_eq!(expand_with("${EMPTY}", env).unwrap(), "");
        assert_eq!(expand_with("$HOME and $", env).unwrap(), "$HOME and $");
        let err = expand_with("${NOPE}", env).unwrap_err();
        assert_eq!(
            err,
            ExpandError::Unset {
                name: "NOPE".into()
            }
        );
        assert!(err.to_string().contains("`NOPE`"), "{err}");
        assert!(expand_with("${TOKEN", env).is_err());
    }
}
