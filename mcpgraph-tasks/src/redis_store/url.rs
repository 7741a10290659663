//! A Redis URL as errors show it.

/// `url` with the password of its user info replaced by `***`.
pub(super) fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        // Not a URL: it may be anything, a password included.
        return "…".to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((user_info, host)) => {
            let user = user_info.split_once(':').map_or(user_info, |(u, _)| u);
            let password = if user_info.contains(':') { ":***" } else { "" };
            format!("{scheme}://{user}{password}@{host}{tail}")
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact_url("redis://:s3cret@h:6379/2"),
            "redis://:***@h:6379/2"
        );
        assert_eq!(
            redact_url("rediss://bob:p@ss:w@h/0#x"),
            "rediss://bob:***@h/0#x"
        );
        assert_eq!(redact_url("redis://bob@h"), "redis://bob@h");
        assert_eq!(redact_url("redis://h:1/3"), "redis://h:1/3");
        assert_eq!(redact_url("junk:secretpassword"), "…");
    }
}
