//! Everything that decides how a job's fires become executions: [`JobPolicy`] and
//! [`Retention`].

use std::time::Duration;

use super::backoff::RetryPolicy;
use super::format;
use super::policy::{MisfirePolicy, OverlapPolicy};
use crate::error::{Error, Result};

/// The largest catch-up cap accepted.
pub const MAX_CATCH_UP: u32 = 10_000;
/// The upper bound (exclusive) on jitter.
pub const MAX_JITTER: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

/// How much execution history to keep per job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Retention {
    /// Succeeded executions kept (the newest); default 100.
    pub keep_succeeded: u32,
    /// Finished executions other than succeeded ones (failed, timed out, abandoned, skipped,
    /// missed, cancelled) kept, the newest; default 100.
    pub keep_failed: u32,
    /// Executions older than this are deleted whatever the counts; default 30 days, at least 1 s.
    pub max_age: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Retention { keep_succeeded: 100, keep_failed: 100, max_age: 30 * DAY }
    }
}

impl Retention {
    /// Sets how many succeeded and failed executions to keep.
    pub fn with_counts(mut self, keep_succeeded: u32, keep_failed: u32) -> Self {
        self.keep_succeeded = keep_succeeded;
        self.keep_failed = keep_failed;
        self
    }

    /// Sets the age past which executions are deleted.
    pub fn with_max_age(mut self, max_age: Duration) -> Self {
        self.max_age = max_age;
        self
    }

    /// Checks the ranges documented on the fields.
    pub fn validate(&self) -> Result<()> {
        at_least("retention max_age", self.max_age, Duration::from_secs(1))
    }
}

/// The policies of one job. `Default` gives the documented defaults; set fields with the
/// `with_*` methods and check them with [`validate`](Self::validate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct JobPolicy {
    /// A fire due while an execution is running (default forbid).
    pub overlap: OverlapPolicy,
    /// Fires more than `misfire_threshold` late when first seen (default run-latest).
    pub misfire: MisfirePolicy,
    /// A fire later than this when the leader first sees it is a misfire; shorter lateness just
    /// runs late. Default 60 s, at most 1 day.
    pub misfire_threshold: Duration,
    /// How far back run-all catches up; default 1 h, 1 s to 366 days.
    pub catch_up_window: Duration,
    /// The most fires one plan runs (the newest win); default 100, 1 to 10 000.
    pub catch_up_max: u32,
    /// An execution not started within this of becoming due (its scheduled instant plus
    /// jitter, or its retry's backoff) is recorded as missed instead of starting late; `None`
    /// (the default) waits for ever. At least 1 s.
    pub starting_deadline: Option<Duration>,
    /// A random delay up to this added to each start, to spread load; default 0, under 1 h.
    /// It delays the start only: the fire keeps its scheduled instant as its identity.
    pub jitter: Duration,
    /// An execution running longer than this is cancelled and failed; `None` (the default)
    /// means no limit. At least 1 s.
    pub timeout: Option<Duration>,
    /// Retries of failed executions (default: none).
    pub retry: RetryPolicy,
    /// History kept (default 100 succeeded, 100 failed, 30 days).
    pub retention: Retention,
}

impl Default for JobPolicy {
    fn default() -> Self {
        JobPolicy {
            overlap: OverlapPolicy::default(),
            misfire: MisfirePolicy::default(),
            misfire_threshold: Duration::from_secs(60),
            catch_up_window: Duration::from_secs(3600),
            catch_up_max: 100,
            starting_deadline: None,
            jitter: Duration::ZERO,
            timeout: None,
            retry: RetryPolicy::default(),
            retention: Retention::default(),
        }
    }
}

impl JobPolicy {
    /// Sets the overlap policy.
    pub fn with_overlap(mut self, overlap: OverlapPolicy) -> Self {
        self.overlap = overlap;
        self
    }

    /// Sets the misfire policy.
    pub fn with_misfire(mut self, misfire: MisfirePolicy) -> Self {
        self.misfire = misfire;
        self
    }

    /// Sets the lateness past which a fire is a misfire.
    pub fn with_misfire_threshold(mut self, threshold: Duration) -> Self {
        self.misfire_threshold = threshold;
        self
    }

    /// Sets how far back run-all catches up.
    pub fn with_catch_up_window(mut self, window: Duration) -> Self {
        self.catch_up_window = window;
        self
    }

    /// Sets the most fires one plan runs.
    pub fn with_catch_up_max(mut self, max: u32) -> Self {
        self.catch_up_max = max;
        self
    }

    /// Sets (or clears) the starting deadline.
    pub fn with_starting_deadline(mut self, deadline: Option<Duration>) -> Self {
        self.starting_deadline = deadline;
        self
    }

    /// Sets the start jitter.
    pub fn with_jitter(mut self, jitter: Duration) -> Self {
        self.jitter = jitter;
        self
    }

    /// Sets (or clears) the execution timeout.
    pub fn with_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets the retention.
    pub fn with_retention(mut self, retention: Retention) -> Self {
        self.retention = retention;
        self
    }

    /// Checks every range documented on the fields; the error names the first bad value.
    pub fn validate(&self) -> Result<()> {
        if self.misfire_threshold > DAY {
            return Err(out_of_range("misfire_threshold", self.misfire_threshold, "0s to 24h"));
        }
        if !(Duration::from_secs(1)..=366 * DAY).contains(&self.catch_up_window) {
            return Err(out_of_range("catch_up_window", self.catch_up_window, "1s to 8784h"));
        }
        if !(1..=MAX_CATCH_UP).contains(&self.catch_up_max) {
            return Err(Error::invalid_input(format!(
                "invalid catch_up_max {}: expected 1 to {MAX_CATCH_UP}",
                self.catch_up_max
            )));
        }
        if let Some(deadline) = self.starting_deadline {
            at_least("starting_deadline", deadline, Duration::from_secs(1))?;
        }
        if self.jitter >= MAX_JITTER {
            return Err(out_of_range("jitter", self.jitter, "0s to just under 1h"));
        }
        if let Some(timeout) = self.timeout {
            at_least("timeout", timeout, Duration::from_secs(1))?;
        }
        self.retry.validate()?;
        self.retention.validate()
    }
}

fn out_of_range(what: &str, value: Duration, accepted: &str) -> Error {
    Error::invalid_input(format!("invalid {what} {}: expected {accepted}", format::duration(value)))
}

fn at_least(what: &str, value: Duration, min: Duration) -> Result<()> {
    if value < min {
        return Err(out_of_range(what, value, &format!("at least {}", format::duration(min))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones_and_valid() {
        let p = JobPolicy::default();
        p.validate().unwrap();
        assert_eq!(p.overlap, OverlapPolicy::Forbid);
        assert_eq!(p.misfire, MisfirePolicy::RunLatest);
        assert_eq!(p.misfire_threshold, Duration::from_secs(60));
        assert_eq!(p.catch_up_window, Duration::from_secs(3600));
        assert_eq!(p.catch_up_max, 100);
        assert_eq!((p.starting_deadline, p.jitter, p.timeout), (None, Duration::ZERO, None));
        assert_eq!(p.retry, RetryPolicy::default());
        let r = p.retention;
        assert_eq!((r.keep_succeeded, r.keep_failed, r.max_age), (100, 100, 30 * DAY));
    }

    #[test]
    fn builders_set_fields() {
        let p = JobPolicy::default()
            .with_overlap(OverlapPolicy::BufferOne)
            .with_misfire(MisfirePolicy::RunAll)
            .with_misfire_threshold(Duration::from_secs(5))
            .with_catch_up_window(Duration::from_secs(600))
            .with_catch_up_max(7)
            .with_starting_deadline(Some(Duration::from_secs(30)))
            .with_jitter(Duration::from_secs(2))
            .with_timeout(Some(Duration::from_secs(90)))
            .with_retry(RetryPolicy::default().with_max_attempts(3))
            .with_retention(Retention::default().with_counts(1, 2).with_max_age(DAY));
        p.validate().unwrap();
        assert_eq!(p.overlap, OverlapPolicy::BufferOne);
        assert_eq!(p.misfire, MisfirePolicy::RunAll);
        assert_eq!(p.misfire_threshold, Duration::from_secs(5));
        assert_eq!(p.catch_up_window, Duration::from_secs(600));
        assert_eq!(p.catch_up_max, 7);
        assert_eq!(p.starting_deadline, Some(Duration::from_secs(30)));
        assert_eq!(p.jitter, Duration::from_secs(2));
        assert_eq!(p.timeout, Some(Duration::from_secs(90)));
        assert_eq!(p.retry.max_attempts, 3);
        assert_eq!((p.retention.keep_succeeded, p.retention.keep_failed), (1, 2));
        assert_eq!(p.retention.max_age, DAY);
    }

    #[test]
    fn validation_names_the_first_bad_value() {
        let d = JobPolicy::default();
        let secs = Duration::from_secs;
        let cases = [
            (d.with_misfire_threshold(DAY + secs(1)), "misfire_threshold 24h1s"),
            (d.with_catch_up_window(Duration::ZERO), "catch_up_window 0s"),
            (d.with_catch_up_window(367 * DAY), "catch_up_window 8808h"),
            (d.with_catch_up_max(0), "catch_up_max 0"),
            (d.with_catch_up_max(MAX_CATCH_UP + 1), "catch_up_max 10001"),
            (d.with_starting_deadline(Some(Duration::ZERO)), "starting_deadline 0s"),
            (d.with_jitter(MAX_JITTER), "jitter 1h"),
            (d.with_timeout(Some(Duration::from_millis(10))), "timeout 10ms"),
            (d.with_retry(RetryPolicy::default().with_max_attempts(0)), "max_attempts 0"),
            (d.with_retention(Retention::default().with_max_age(Duration::ZERO)), "max_age 0s"),
        ];
        for (p, named) in cases {
            let err = p.validate().unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::InvalidInput);
            assert!(err.to_string().contains(&format!("{named}: expected")), "{err}");
        }
        d.with_jitter(MAX_JITTER - Duration::from_millis(1)).validate().unwrap();
        d.with_misfire_threshold(Duration::ZERO).validate().unwrap();
    }
}
