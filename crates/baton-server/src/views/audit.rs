//! The report of an audit of the fires recorded in a window.

use baton::StoreTime;
use baton::core::job::{AuditReport, Finding};
use serde::Serialize;

use super::{instant, millis};

/// What an audit of the window `[since, until)` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditView {
    /// Start of the window.
    pub since: String,
    /// End of the window (exclusive).
    pub until: String,
    /// Jobs audited.
    pub jobs: usize,
    /// Fires the schedules called for in the window.
    pub expected: u64,
    /// Expected fires that ran at least once.
    pub ran: u64,
    /// Expected fires recorded as skipped or missed, with their policy's reason.
    pub explained: u64,
    /// Expected fires whose record retention deleted: not judged.
    pub pruned: u64,
    /// Fires that ran more than once at the same time, or succeeded more than once.
    pub duplicates: Vec<FindingView>,
    /// Expected fires with no record at all.
    pub missing: Vec<FindingView>,
    /// Fires whose first attempt started later than allowed.
    pub late: Vec<FindingView>,
    /// The largest start lag seen, in milliseconds.
    pub max_lag_ms: u64,
    /// No duplicate and no unexplained missing fire.
    pub clean: bool,
}

impl AuditView {
    /// The view of `report`, an audit of `[since, until)`.
    pub fn of(report: &AuditReport, since: StoreTime, until: StoreTime) -> Self {
        let findings = |found: &[Finding]| found.iter().map(FindingView::from).collect();
        AuditView {
            since: instant(since),
            until: instant(until),
            jobs: report.jobs,
            expected: report.expected,
            ran: report.ran,
            explained: report.explained,
            pruned: report.pruned,
            duplicates: findings(&report.duplicates),
            missing: findings(&report.missing),
            late: findings(&report.late),
            max_lag_ms: millis(report.max_lag),
            clean: report.is_clean(),
        }
    }
}

/// One fire an audit reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingView {
    /// The job.
    pub job: String,
    /// The fire's scheduled instant.
    pub scheduled_at: String,
    /// What is wrong with it.
    pub detail: String,
}

impl From<&Finding> for FindingView {
    fn from(finding: &Finding) -> Self {
        FindingView {
            job: finding.job.to_string(),
            scheduled_at: instant(finding.scheduled_at),
            detail: finding.detail.clone(),
        }
    }
}
