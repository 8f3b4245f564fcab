//! Backend URLs in messages: passwords masked, causes on one line. Every backend and the
//! command line print URLs through [`redact`], so that none of them can leak a password.

/// The URL with everything between the user name's `:` and the last `@` replaced by `***`, so
/// that a password is masked even when it holds characters a URL should have encoded (`@`,
/// `/`). A URL whose query holds an `@` is masked up to that `@`: this errs on the side of
/// hiding too much, never too little.
pub fn redact(url: &str) -> String {
    let start = url.find("://").map_or(0, |at| at + 3);
    let (Some(colon), Some(at)) = (url[start..].find(':'), url.rfind('@')) else {
        return url.to_string();
    };
    let colon = start + colon;
    if colon > at {
        return url.to_string();
    }
    format!("{}***{}", &url[..=colon], &url[at..])
}

/// Collapses a multi-line message onto one line.
pub fn single_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_the_password_only() {
        assert_eq!(redact("postgres://u:secret@h:5432/db"), "postgres://u:***@h:5432/db");
        assert_eq!(redact("postgres://app:s3cr@t@db:5432/x"), "postgres://app:***@db:5432/x");
        assert_eq!(
            redact("postgres://u:p@h?sslmode=disable"),
            "postgres://u:***@h?sslmode=disable"
        );
        assert_eq!(redact("redis://:pw/with/slashes@db"), "redis://:***@db");
        for unchanged in
            ["postgres://u@h/db", "postgresql://db:5432", "redis://app@db:6379", "sqlite://a.db"]
        {
            assert_eq!(redact(unchanged), unchanged);
        }
    }

    #[test]
    fn collapses_a_message_onto_one_line() {
        assert_eq!(
            single_line("cannot connect:\n  refused\t(111)"),
            "cannot connect: refused (111)"
        );
    }
}
