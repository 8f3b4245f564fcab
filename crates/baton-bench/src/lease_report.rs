//! The sections of the `baton bench lease` report, as text.

use std::time::Duration;

use crate::LeaseBenchArgs;
use crate::crash::Crash;
use crate::handover::Handover;
use crate::idle::Idle;
use crate::lease::{CLIENTS, Throughput};
use crate::report::{self, Latency, Table, per, ratio, statements_per, verdict};
use crate::target::Target;
use crate::timed::{Measured, OpKind};

/// The lowest lease-to-floor throughput ratio the design accepts on PostgreSQL.
const MIN_RATIO: f64 = 0.8;
/// The lowest ratio of baton's lease cycles to the same statements driven by a plain loop.
const MIN_PLAIN_RATIO: f64 = 0.95;
/// Handover targets on PostgreSQL and MySQL (p50, p99) and SQLite (p99).
const PG_HANDOVER: (Duration, Duration) = (Duration::from_millis(2), Duration::from_millis(10));
const MYSQL_HANDOVER: (Duration, Duration) = (Duration::from_millis(5), Duration::from_millis(50));
const SQLITE_HANDOVER_P99: Duration = Duration::from_millis(50);
const LEASE_KINDS: [OpKind; 3] = [OpKind::Acquire, OpKind::Renew, OpKind::Release];

/// What was run, where, and how to read the figures.
pub(crate) fn header(target: &Target, url: &str, args: &LeaseBenchArgs, run: &str) -> String {
    format!(
        "baton bench lease on {} ({}), run {run}\n\
         Each throughput figure is measured for {:?} in all; the floor and the lease cycles \
         alternate in {} rounds, on the same store.\n\
         ops/s is the median of the rates over 10 equal slices of the measurement; latencies \
         are per operation (p50/p99).\n\
         Commits in the timed runs include one-off costs of new connections; the accounting \
         below has the per-operation figures.\n",
        target.kind(),
        baton::redact(url),
        args.duration,
        crate::lease::ROUNDS,
    )
}

/// The p50 and p99 cells of a latency, or dashes.
pub(crate) fn latency_cells(latency: Option<Latency>) -> [String; 2] {
    match latency {
        Some(latency) => [report::duration(latency.p50), report::duration(latency.p99)],
        None => ["-".to_string(), "-".to_string()],
    }
}

/// Throughput against the floor, and statements and commits per operation.
pub(crate) fn throughput(t: &Throughput, target: &Target) -> String {
    let counting = t.check.live();
    let postgres = target.is_postgres();
    let mut table = Table::new(&[
        "run",
        "conns",
        "ops/s",
        "p50",
        "p99",
        "vs floor",
        "stmts/op",
        "commits/op",
        "target",
    ]);
    for (conns, series) in [(1, &t.single), (CLIENTS, &t.many)] {
        let (floor, lease) = (&series.floor, &series.lease);
        let floor_rate = floor.samples.rate(&[OpKind::Update]);
        measured_row(
            &mut table,
            Row {
                label: "floor: UPDATE + commit",
                conns,
                measured: floor,
                kinds: &[OpKind::Update],
                floor_rate,
                goal: String::new(),
            },
            counting,
        );
        if let Some(plain) = &series.plain {
            measured_row(
                &mut table,
                Row {
                    label: "plain loop: baton's statements",
                    conns,
                    measured: plain,
                    kinds: &LEASE_KINDS,
                    floor_rate,
                    goal: String::new(),
                },
                counting,
            );
        }
        let lease_rate = lease.samples.rate(&LEASE_KINDS);
        let goal = match &series.plain {
            Some(plain) => {
                let of_plain = lease_rate / plain.samples.rate(&LEASE_KINDS);
                format!(
                    "{} of plain, ≥ {MIN_PLAIN_RATIO:.2} {}",
                    ratio(of_plain),
                    verdict(of_plain >= MIN_PLAIN_RATIO)
                )
            }
            None if postgres => {
                let lease_ratio = lease_rate / floor_rate;
                format!("≥ {MIN_RATIO:.2} {}", verdict(lease_ratio >= MIN_RATIO))
            }
            None => String::new(),
        };
        measured_row(
            &mut table,
            Row {
                label: "lease: acquire/renew/release",
                conns,
                measured: lease,
                kinds: &LEASE_KINDS,
                floor_rate,
                goal,
            },
            counting,
        );
        for kind in LEASE_KINDS {
            let [p50, p99] = latency_cells(lease.samples.latency(&[kind]));
            let label = format!("  {}", kind.label());
            table.row(vec![
                label,
                String::new(),
                report::rate(lease.samples.rate(&[kind])),
                p50,
                p99,
            ]);
        }
    }
    let race = &t.race.measured;
    let floor_rate = t.many.floor.samples.rate(&[OpKind::Update]);
    let race_kinds = [OpKind::Acquire, OpKind::Release];
    measured_row(
        &mut table,
        Row {
            label: "race: attempt (+release if granted)",
            conns: CLIENTS,
            measured: race,
            kinds: &race_kinds,
            floor_rate,
            goal: String::new(),
        },
        counting,
    );
    let attempts = race.samples.count(&[OpKind::Acquire]);
    let [p50, p99] = latency_cells(race.samples.latency(&[OpKind::Acquire]));
    table.row(vec![
        "  attempt".into(),
        String::new(),
        report::rate(race.samples.rate(&[OpKind::Acquire])),
        p50,
        p99,
    ]);

    let mut out = format!("Lease operations against the floor ({})\n", target.kind());
    out.push_str(&table.render());
    out.push_str(&format!(
        "race: {CLIENTS} contenders on one lease made {attempts} attempts ({} /s), {} granted, \
         {} answered with a conflict\n\n",
        report::rate(race.samples.rate(&[OpKind::Acquire])),
        t.race.grants,
        t.race.conflicts,
    ));
    out.push_str(&crate::accounting::render(&t.accounted, &t.check, target));
    out
}

/// One measured run as a row of the throughput table.
struct Row<'a> {
    label: &'a str,
    conns: usize,
    measured: &'a Measured,
    kinds: &'a [OpKind],
    floor_rate: f64,
    goal: String,
}

fn measured_row(table: &mut Table, row: Row<'_>, counting: bool) {
    let samples = &row.measured.samples;
    let rate = samples.rate(row.kinds);
    let ops = samples.count(row.kinds);
    let [p50, p99] = latency_cells(samples.latency(row.kinds));
    table.row(vec![
        row.label.to_string(),
        row.conns.to_string(),
        report::rate(rate),
        p50,
        p99,
        if row.floor_rate > 0.0 { ratio(rate / row.floor_rate) } else { "-".into() },
        statements_per(counting, row.measured.statements, ops),
        per(Some(row.measured.commits), ops),
        row.goal,
    ]);
}

/// What a graceful handover should take on a kind of store.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HandoverGoal {
    /// The median's bound, where there is one.
    pub(crate) p50: Option<Duration>,
    /// The 99th percentile's bound.
    pub(crate) p99: Duration,
}

impl HandoverGoal {
    /// The goal on a SQL store: PostgreSQL's, MySQL's (which wakes contenders through named
    /// locks, not notifications), or SQLite's.
    pub(crate) fn of(target: &Target) -> HandoverGoal {
        match target {
            Target::Postgres { .. } => {
                HandoverGoal { p50: Some(PG_HANDOVER.0), p99: PG_HANDOVER.1 }
            }
            Target::Mysql { .. } => {
                HandoverGoal { p50: Some(MYSQL_HANDOVER.0), p99: MYSQL_HANDOVER.1 }
            }
            Target::Sqlite { .. } => HandoverGoal { p50: None, p99: SQLITE_HANDOVER_P99 },
        }
    }

    fn judge(self, latency: Latency) -> String {
        let p99 = format!("p99 < {}", report::duration(self.p99));
        match self.p50 {
            Some(p50) => format!(
                "p50 < {}, {p99} {}",
                report::duration(p50),
                verdict(latency.p50 < p50 && latency.p99 < self.p99)
            ),
            None => format!("{p99} {}", verdict(latency.p99 < self.p99)),
        }
    }
}

/// Graceful handover times on a store of `kind`, against the retry period and the goal.
pub(crate) fn handover(h: &Handover, kind: &str, goal: HandoverGoal) -> String {
    let mut table = Table::new(&["handover", "rounds", "p50", "p99", "max", "target"]);
    let latency = Latency::of(h.gaps.clone());
    let [p50, p99] = latency_cells(latency);
    let max = latency.map_or("-".into(), |l| report::duration(l.max));
    let goal = latency.map(|l| goal.judge(l)).unwrap_or_default();
    table.row(vec!["release → acquire".into(), h.gaps.len().to_string(), p50, p99, max, goal]);
    format!(
        "Graceful handover between two electors ({kind})\n{}\
         for comparison, a waiter not woken by the release would retry every {:?} ± {:.0} %\n",
        table.render(),
        h.retry_period,
        h.jitter * 100.0
    )
}

/// Crash failover times against the bound TTL + retry period.
pub(crate) fn crash(c: &Crash) -> String {
    let mut table = Table::new(&["crash round", "SIGKILL → next holder's command"]);
    for (round, failover) in c.failovers.iter().enumerate() {
        table.row(vec![(round + 1).to_string(), report::duration(*failover)]);
    }
    let bound = c.ttl + c.retry_period;
    let longest = c.ttl + c.retry_period.mul_f64(1.0 + c.jitter);
    let mut out = format!(
        "Crash failover of `baton exec --on-held wait` holders (TTL {:?}, retry {:?} ± {:.0} %)\n",
        c.ttl,
        c.retry_period,
        c.jitter * 100.0
    );
    out.push_str(&table.render());
    if let Some(latency) = Latency::of(c.failovers.clone()) {
        out.push_str(&format!(
            "p50 {}, max {}; bound TTL + retry = {} ({} with the longest jitter) {}\n",
            report::duration(latency.p50),
            report::duration(latency.max),
            report::duration(bound),
            report::duration(longest),
            verdict(latency.max <= longest)
        ));
    }
    out
}

/// The line printed when the crash scenario is skipped.
pub(crate) fn crash_skipped() -> String {
    "Crash failover: skipped (--skip-crash)\n".to_string()
}

/// Idle load per renew interval for each number of leases held; `writes` says what the writes
/// column counts, `None` where the store counts none.
pub(crate) fn idle(runs: &[Idle], writes: Option<&str>) -> String {
    let mut table = Table::new(&[
        "leases held",
        "statements/interval",
        "store calls/interval",
        "writes/interval",
        "lost",
    ]);
    let per_interval = |count: u64, run: &Idle| count as f64 / run.intervals.max(1) as f64;
    for run in runs {
        table.row(vec![
            run.leases.to_string(),
            ratio(per_interval(run.statements, run)),
            ratio(per_interval(run.store_calls, run)),
            run.writes.map_or("-".into(), |count| ratio(per_interval(count, run))),
            run.lost.to_string(),
        ]);
    }
    let mut out = String::new();
    if let Some(first) = runs.first() {
        out.push_str(&format!(
            "Idle load of one elector (TTL {:?}, renew every {:?}), over {} renew intervals \
             ({} measured)\n",
            first.ttl,
            first.renew_interval,
            first.intervals,
            report::duration(first.elapsed)
        ));
    }
    out.push_str(&table.render());
    out.push_str(&match writes {
        Some(label) => format!("writes are {label}\n"),
        None => "writes are not counted on this store\n".to_string(),
    });
    if let (Some(few), Some(many)) = (runs.first(), runs.last()) {
        let cost = |run: &Idle| [run.statements, run.store_calls, run.writes.unwrap_or(0)];
        let constant = cost(many).iter().zip(cost(few)).all(|(many, few)| *many <= few);
        out.push_str(&format!(
            "statements, store calls and writes per renew interval with {} leases vs {}: \
             {} / {} / {} vs {} / {} / {} → {}\n",
            many.leases,
            few.leases,
            ratio(per_interval(many.statements, many)),
            ratio(per_interval(many.store_calls, many)),
            many.writes.map_or("-".into(), |count| ratio(per_interval(count, many))),
            ratio(per_interval(few.statements, few)),
            ratio(per_interval(few.store_calls, few)),
            few.writes.map_or("-".into(), |count| ratio(per_interval(count, few))),
            if constant { "O(1) ok" } else { "grows with the leases: MISSED" }
        ));
    }
    out
}
