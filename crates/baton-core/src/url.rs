//! Backend URLs in messages: credentials masked, causes on one line. Every backend and the
//! command line print URLs through [`redact`], so that none of them can leak a password.

/// Query parameters whose values are credentials: a key holding one of these words (in any
/// case) is masked, such as `password`, `sslpassword`, `token`, `auth_token`, `secret`.
const SECRET_KEYS: [&str; 4] = ["password", "secret", "token", "passwd"];

/// The URL with every credential replaced by `***`: the password of the user information
/// (everything between the user name's `:` and the last `@`, so that a password is masked
/// even when it holds characters a URL should have encoded, such as `@` or `/`), and the value
/// of every query parameter whose key names a secret (see `SECRET_KEYS`). A URL whose query
/// holds an `@` is masked up to that `@`: this errs on the side of hiding too much, never too
/// little.
pub fn redact(url: &str) -> String {
    let masked = mask_user_info(url);
    match masked.split_once('?') {
        Some((base, query)) => format!("{base}?{}", mask_query(query)),
        None => masked,
    }
}

fn mask_user_info(url: &str) -> String {
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

/// The query (and fragment) with the values of secret parameters masked.
fn mask_query(query: &str) -> String {
    let (query, fragment) = match query.split_once('#') {
        Some((query, fragment)) => (query, Some(fragment)),
        None => (query, None),
    };
    let params: Vec<String> = query
        .split('&')
        .map(|param| match param.split_once('=') {
            Some((key, _)) if is_secret(key) => format!("{key}=***"),
            _ => param.to_string(),
        })
        .collect();
    let mut masked = params.join("&");
    if let Some(fragment) = fragment {
        masked.push('#');
        masked.push_str(fragment);
    }
    masked
}

fn is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    SECRET_KEYS.iter().any(|word| key.contains(word))
}

/// Collapses a multi-line message onto one line.
pub fn single_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Percent-decodes `text` (`%XX` escapes, as in URLs and in names escaped for a path); `None`
/// when an escape is malformed or the bytes are not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&first, tail)) = rest.split_first() {
        if first == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(first);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
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
    fn masks_secret_query_parameters() {
        assert_eq!(
            redact("postgres://u@h/db?sslmode=require&password=hunter2&sslpassword=k"),
            "postgres://u@h/db?sslmode=require&password=***&sslpassword=***"
        );
        assert_eq!(
            redact("redis://h:6379/0?Auth_Token=t1&client_secret=s&x=1#frag"),
            "redis://h:6379/0?Auth_Token=***&client_secret=***&x=1#frag"
        );
        assert_eq!(redact("postgres://u:p@h/db?token=t"), "postgres://u:***@h/db?token=***");
        assert_eq!(redact("sqlite://a.db?mode=rwc"), "sqlite://a.db?mode=rwc");
    }

    #[test]
    fn collapses_a_message_onto_one_line() {
        assert_eq!(
            single_line("cannot connect:\n  refused\t(111)"),
            "cannot connect: refused (111)"
        );
    }
}
