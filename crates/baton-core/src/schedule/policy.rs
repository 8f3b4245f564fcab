//! What to do when fires overlap or are missed.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// Defines a fieldless policy enum with stable names, `as_str`, `Display` and `FromStr`.
macro_rules! named_policy {
    (
        $(#[$doc:meta])* $name:ident, $what:literal,
        $($(#[$vdoc:meta])* $variant:ident => $text:literal,)+
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* #[doc = concat!("\n\nNamed `", $text, "`.")] $variant,)+
        }

        impl $name {
            /// Every variant, in documentation order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The stable name, as accepted by `FromStr`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = Error;
            fn from_str(text: &str) -> Result<Self> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => Err(Error::invalid_input(format!(
                        concat!("invalid ", $what, " {:?}: expected one of {}"),
                        text,
                        [$($text),+].join(", ")
                    ))),
                }
            }
        }
    };
}

named_policy!(
    /// What to do when a fire comes due while an execution of the same job is still running.
    /// The default is [`Forbid`](OverlapPolicy::Forbid).
    OverlapPolicy, "overlap policy",
    /// Start the new execution alongside the running one.
    Allow => "allow",
    /// Record the new fire as skipped and let the running execution finish. A fire that came
    /// due before the running execution started (fires owed after the scheduler was down)
    /// waits for it instead, and is decided again once it has ended.
    #[default]
    Forbid => "forbid",
    /// Cancel the running execution and start the new one.
    Replace => "replace",
    /// Keep at most one fire waiting; it starts when the running execution ends. Further fires
    /// while one is waiting are recorded as skipped.
    BufferOne => "buffer-one",
);

named_policy!(
    /// What to do with fires that came due while no leader was scheduling them (more than the
    /// misfire threshold late when first seen). The default is
    /// [`RunLatest`](MisfirePolicy::RunLatest). See [`plan_fires`](super::plan_fires).
    MisfirePolicy, "misfire policy",
    /// Record every misfired fire as missed.
    Skip => "skip",
    /// Run one execution for the misfired fires, and record the others as missed.
    #[default]
    RunLatest => "run-latest",
    /// Run every misfired fire within the catch-up window, up to the catch-up cap.
    RunAll => "run-all",
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for policy in OverlapPolicy::ALL {
            assert_eq!(policy.as_str().parse::<OverlapPolicy>().unwrap(), *policy);
            assert_eq!(policy.to_string(), policy.as_str());
        }
        for policy in MisfirePolicy::ALL {
            assert_eq!(policy.as_str().parse::<MisfirePolicy>().unwrap(), *policy);
        }
        assert_eq!("buffer-one".parse::<OverlapPolicy>().unwrap(), OverlapPolicy::BufferOne);
        assert_eq!("run-all".parse::<MisfirePolicy>().unwrap(), MisfirePolicy::RunAll);
    }

    #[test]
    fn defaults_are_forbid_and_run_latest() {
        assert_eq!(OverlapPolicy::default(), OverlapPolicy::Forbid);
        assert_eq!(MisfirePolicy::default(), MisfirePolicy::RunLatest);
    }

    #[test]
    fn unknown_names_list_the_accepted_ones() {
        let err = "skip".parse::<OverlapPolicy>().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            r#"invalid overlap policy "skip": expected one of allow, forbid, replace, buffer-one"#
        );
        let err = "RunAll".parse::<MisfirePolicy>().unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"invalid misfire policy "RunAll": expected one of skip, run-latest, run-all"#
        );
    }
}
