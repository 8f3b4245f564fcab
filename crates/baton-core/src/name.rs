//! The one validation rule shared by every name baton stores (leases, holders, jobs), and a
//! macro that wraps it in a string newtype.

/// The longest lease, holder or job name accepted, in bytes.
pub const MAX_NAME_BYTES: usize = 200;

/// Checks that `text` is 1 to [`MAX_NAME_BYTES`] bytes of printable characters without spaces;
/// `what` names the kind of name in the error ("lease name", "job name", ...).
pub(crate) fn check(what: &str, text: &str) -> crate::Result<()> {
    let printable = text.chars().all(|c| !c.is_control() && !c.is_whitespace());
    if text.is_empty() || text.len() > MAX_NAME_BYTES || !printable {
        return Err(crate::Error::invalid_input(format!(
            "invalid {what} {}: expected 1 to {MAX_NAME_BYTES} bytes of printable characters \
             without spaces",
            crate::echo::quoted(text)
        )));
    }
    Ok(())
}

/// Defines a validated string newtype with `new`, `as_str`, `Display`, `FromStr` and `AsRef<str>`.
macro_rules! validated_name {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            #[doc = concat!("Validates and wraps a ", $what, ".")]
            pub fn new(text: impl Into<String>) -> $crate::Result<Self> {
                let text = text.into();
                $crate::name::check($what, &text)?;
                Ok($name(text))
            }

            /// The name as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(&self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::Error;
            fn from_str(text: &str) -> $crate::Result<Self> {
                $name::new(text)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

pub(crate) use validated_name;
