//! A macro for the fieldless state and reason enums of the cluster records: stable stored
//! names, `as_str`, `Display` and a `FromStr` that also takes the upper-case spelling.

/// Defines a fieldless enum with stable names, `ALL`, `as_str`, `Display` and `FromStr`.
macro_rules! named_enum {
    (
        $(#[$doc:meta])* $name:ident, $what:literal,
        $($(#[$vdoc:meta])* $variant:ident => $text:literal,)+
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* #[doc = concat!("\n\nStored as `", $text, "`.")] $variant,)+
        }

        impl $name {
            /// Every variant, in documentation order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable name, as stored and printed.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::Error;
            fn from_str(text: &str) -> $crate::Result<Self> {
                let wanted = text.to_ascii_lowercase().replace('_', "-");
                $name::ALL.iter().copied().find(|v| v.as_str() == wanted).ok_or_else(|| {
                    $crate::Error::invalid_input(format!(
                        concat!("invalid ", $what, " {:?}: expected one of {}"),
                        text,
                        [$($text),+].join(", ")
                    ))
                })
            }
        }
    };
}

pub(crate) use named_enum;
