//! The report of `baton bench cron`, as text.

use std::time::Duration;

use crate::CronBenchArgs;
use crate::cron::{CronRun, Fire, LATE_AFTER};
use crate::report::{self, Latency, Table, ratio, verdict};
use crate::tally::Tally;
use crate::tally_report;
use crate::target::Target;

/// One part of a fire's lag, from its handler start and record.
type Part = fn(&Fire) -> Option<Duration>;

/// Lag targets on PostgreSQL: p50 and p99.
const PG_LAG: (Duration, Duration) = (Duration::from_millis(20), Duration::from_millis(100));
/// Scheduling targets per fire: statements and commits.
const SCHEDULING: (f64, f64) = (2.0, 1.0);

/// What is run, where.
pub(crate) fn header(
    target: &Target,
    url: &str,
    args: &CronBenchArgs,
    run: &str,
    others: usize,
) -> String {
    let mut out = format!(
        "baton bench cron on {} ({}), run {run}\n\
         {} node processes (`baton bench node --role cron`), each a Scheduler with the default \
         settings registering the same {} jobs that fire\nevery second (`Job::every` 1 s) with \
         a handler that only notes its lag; {:?} of warm-up, then a window of {:?}.\n",
        target.kind(),
        baton::redact(url),
        args.nodes,
        args.jobs,
        args.warmup,
        Duration::from_secs(args.duration.as_secs().max(1)),
    );
    out.push_str(&format!("machine: {}\n", crate::machine::describe()));
    if others > 0 {
        out.push_str(&format!(
            "note: the store already holds {others} registered jobs; the scheduler leader reads \
             them all, so a fresh database gives cleaner figures.\n"
        ));
    }
    out
}

/// The whole report.
pub(crate) fn render(run: &CronRun, args: &CronBenchArgs, target: &Target) -> String {
    let mut out = fires(run);
    out.push('\n');
    out.push_str(&lags(run, target));
    out.push('\n');
    out.push_str(&scheduling(run));
    out.push('\n');
    out.push_str(&everything(run, args));
    out
}

fn fires(run: &CronRun) -> String {
    let audit = &run.audit;
    let mut table = Table::new(&["fires in the window", "measured", "target"]);
    table.row(vec!["jobs audited".into(), audit.jobs.to_string()]);
    table.row(vec!["fires owed".into(), audit.expected.to_string()]);
    table.row(vec!["ran".into(), audit.ran.to_string()]);
    table.row(vec!["skipped or missed (on record)".into(), audit.explained.to_string()]);
    table.row(vec!["pruned by retention".into(), audit.pruned.to_string()]);
    let duplicates = audit.duplicates.len();
    table.row(vec![
        "duplicates".into(),
        duplicates.to_string(),
        format!("0 {}", verdict(duplicates == 0)),
    ]);
    let missing = audit.missing.len();
    table.row(vec!["missing".into(), missing.to_string(), format!("0 {}", verdict(missing == 0))]);
    table.row(vec![format!("late (first start > {LATE_AFTER:?})"), audit.late.len().to_string()]);
    let mut out = format!(
        "Fires of [{}, {}), audited against the record (baton_core::job::audit)\n",
        run.since, run.until
    );
    out.push_str(&table.render());
    out.push_str(&format!(
        "The nodes ran until the leader had recorded the window's last fires (or {:?} after \
         the window); missing means no record then.\n",
        crate::cron::CATCH_UP
    ));
    for (kind, findings) in [("duplicate", &audit.duplicates), ("missing", &audit.missing)] {
        for finding in findings.iter().take(10) {
            out.push_str(&format!(
                "  {kind}: {} at {}: {}\n",
                finding.job, finding.scheduled_at, finding.detail
            ));
        }
    }
    out
}

fn micros(value: i64) -> Duration {
    Duration::from_micros(u64::try_from(value).unwrap_or(0))
}

fn millis(value: Option<i64>) -> Option<Duration> {
    value.map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0)))
}

fn lags(run: &CronRun, target: &Target) -> String {
    let mut table = Table::new(&["lag", "fires", "p50", "p99", "max", "target"]);
    let mut started: Vec<Duration> = run.fires.iter().map(|f| micros(f.lag_us)).collect();
    started.sort_unstable();
    let owed = (run.audit.expected as usize).max(started.len());
    let p50 = censored(&started, owed, 0.50);
    let p99 = censored(&started, owed, 0.99);
    let goal = if target.is_postgres() {
        let met = p50.is_some_and(|p| p < PG_LAG.0) && p99.is_some_and(|p| p < PG_LAG.1);
        format!("p50 < 20 ms, p99 < 100 ms {}", verdict(met))
    } else {
        String::new()
    };
    let never = format!("> {}", report::duration(run.tail));
    let cell = |value: Option<Duration>| value.map_or(never.clone(), report::duration);
    let max = if started.len() < owed { never.clone() } else { cell(started.last().copied()) };
    table.row(vec![
        "instant → handler start".into(),
        format!("{} of {owed} started", started.len()),
        cell(p50),
        cell(p99),
        max,
        goal,
    ]);
    let parts: [(&str, Part); 3] = [
        ("  instant → recorded (created_at)", |f| millis(f.recorded_ms)),
        ("  recorded → claimed (started_at)", |f| millis(f.claimed_ms)),
        ("  claimed → handler start", |f| {
            let claimed = f.recorded_ms? + f.claimed_ms?;
            Some(micros(f.lag_us - claimed * 1000))
        }),
    ];
    for (label, part) in parts {
        let values: Vec<Duration> = run.fires.iter().filter_map(part).collect();
        let count = values.len();
        row(&mut table, label, Latency::of(values), count, String::new());
    }
    let early = run.fires.iter().filter(|f| f.lag_us < 0).count();
    let mut out = String::from(
        "Fire lag: scheduled instant → handler start on the store's clock, measured in the \
         handlers and merged over the nodes\n",
    );
    out.push_str(&table.render());
    out.push_str(&format!(
        "A fire owed in the window whose handler had not started when the nodes stopped ({} \
         after the window, once the leader had recorded\nthe window's fires or given up) counts \
         as later than that (\"> …\").\nEach node estimates the store's clock \
         from its best of 5 readings (the parent's round trip: {}); {early} handler start(s) \
         estimated\nbefore their instant counted as 0. The parts are over the started fires, \
         from their records, whose times are whole milliseconds.\n",
        report::duration(run.tail),
        report::duration(run.clock_round_trip)
    ));
    out
}

/// The nearest-rank percentile `q` of `owed` values of which only the `sorted` ones are known,
/// the others being larger than all of them; `None` when it falls among the unknown ones.
fn censored(sorted: &[Duration], owed: usize, q: f64) -> Option<Duration> {
    let rank = ((q * owed as f64).ceil() as usize).clamp(1, owed.max(1));
    sorted.get(rank - 1).copied()
}

fn row(table: &mut Table, label: &str, latency: Option<Latency>, count: usize, goal: String) {
    let cell = |pick: fn(&Latency) -> Duration| {
        latency.as_ref().map_or("-".to_string(), |l| report::duration(pick(l)))
    };
    table.row(vec![
        label.to_string(),
        count.to_string(),
        cell(|l| l.p50),
        cell(|l| l.p99),
        cell(|l| l.max),
        goal,
    ]);
}

fn merged(run: &CronRun) -> Tally {
    let mut tally = Tally::default();
    for node in &run.nodes {
        tally.merge(&node.tally);
    }
    tally
}

fn scheduling(run: &CronRun) -> String {
    let tally = merged(run);
    let record = tally.get("record_fires");
    let fires = record.items.max(1) as f64;
    let statements = record.statements as f64 / fires;
    let transactions = record.calls as f64 / fires;
    let counting = run.check.live();
    let met = counting && statements <= SCHEDULING.0 && transactions <= SCHEDULING.1;
    let mut table = Table::new(&[
        "scheduling",
        "calls",
        "fires recorded",
        "statements",
        "stmts/fire",
        "txns/fire",
        "target",
    ]);
    table.row(vec![
        "leader: record_fires".into(),
        record.calls.to_string(),
        record.items.to_string(),
        record.statements.to_string(),
        format!("{statements:.4}"),
        format!("{transactions:.4}"),
        format!("≤ 2 and ≤ 1 {}", verdict(met)),
    ]);
    let mut out = String::from(
        "Scheduling cost: the leader's record_fires calls in the window (its own statement \
         events)\n",
    );
    out.push_str(&table.render());
    out.push_str(&format!(
        "Each record_fires call is one transaction (PostgreSQL: one statement in autocommit, \
         {:.2} statements per call here; SQLite: one BEGIN IMMEDIATE).\n\
         The store's commit count cannot separate the leader's commits from the workers': the \
         server's figure for all of baton's work is below.\n",
        record.statements as f64 / record.calls.max(1) as f64
    ));
    out
}

fn everything(run: &CronRun, args: &CronBenchArgs) -> String {
    let tally = merged(run);
    let fires = (u64::from(args.jobs) * args.duration.as_secs().max(1)).max(1);
    let mut out = format!("All store calls of all nodes in the window, per fire owed ({fires})\n");
    out.push_str(&tally_report::calls(&tally, fires, "per fire"));
    out.push_str(&tally_report::nodes(&run.nodes, |node| {
        let window = run.since.as_millis()..run.until.as_millis();
        let ran = node.lags.iter().filter(|(_, at, _)| window.contains(at)).count();
        format!("{ran} handler starts")
    }));
    out.push_str(&format!(
        "commits counted by the store from just before the window to the nodes' exit: {} for {} \
         fires recorded in that span = {} per fire (recording, claiming, completing, heartbeats, \
         lease renewals, shutdown)\n",
        run.commits,
        run.recorded,
        ratio(run.commits as f64 / run.recorded.max(1) as f64)
    ));
    out.push_str(&tally_report::statement_note(&run.check));
    out.push_str(&format!("machine at the end: {}\n", crate::machine::describe()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_that_never_started_count_as_the_latest() {
        let ms = |v: u64| Duration::from_millis(v);
        let started: Vec<Duration> = (1..=90).map(ms).collect();
        assert_eq!(censored(&started, 100, 0.50), Some(ms(50)));
        assert_eq!(censored(&started, 100, 0.99), None);
        assert_eq!(censored(&started, 90, 0.99), Some(ms(90)));
        assert_eq!(censored(&[], 0, 0.5), None);
    }
}
