//! Validated job names.

use crate::name::validated_name;

validated_name!(
    /// The name of a job: 1 to 200 bytes of printable characters without spaces, validated like
    /// a lease name.
    JobName,
    "job name"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::name::MAX_NAME_BYTES;

    #[test]
    fn accepts_printable_names_up_to_the_limit() {
        for good in ["nightly-settlement", "정산/매일", "a"] {
            assert_eq!(JobName::new(good).unwrap().as_str(), good);
        }
        assert!(JobName::new("a".repeat(MAX_NAME_BYTES)).is_ok());
        let parsed: JobName = "report.daily".parse().unwrap();
        assert_eq!(parsed.to_string(), "report.daily");
    }

    #[test]
    fn rejects_empty_long_and_unprintable_names_naming_the_value() {
        let too_long = "a".repeat(MAX_NAME_BYTES + 1);
        for bad in ["", "two words", "tab\there", "bell\u{7}", too_long.as_str()] {
            let err = JobName::new(bad).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput, "{bad:?}");
            let message = err.to_string();
            assert!(
                message.starts_with(&format!("invalid job name {}", crate::echo::quoted(bad))),
                "{message}"
            );
            assert!(message.contains("1 to 200 bytes"), "{message}");
        }
    }
}
