//! Bugs planted on purpose, for the crate's deterministic simulation to show that it catches
//! them. The lease's are the mistakes of the same names in `baton-core/model/lease.pml`, which
//! spin must catch as well; [`Bug::KeepLostClaim`] and [`Bug::KeepLapsedClaim`] are the
//! cluster's, which the simulation found before they were fixed; the misfire bugs are the
//! scheduler's after a long downtime. Outside the crate's own tests no bug can be planted and
//! [`planted`] is false.

/// A deliberate mistake the runtime can be switched to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bug {
    /// A claim's deadline counted from the arrival of the store's answer, not from when the
    /// call was sent (an acquisition, a renewal, an execution's claim or heartbeat, a
    /// partition's heartbeat): a slow answer stretches the claim past its expiry on the store.
    DeadlineFromReceipt,
    /// An acquisition of unknown outcome taken as granted when the record read back names this
    /// holder, without the renewal that confirms it on the store's clock.
    TrustReadBack,
    /// A step-down that sends the release first and ends the term when the answer comes, so
    /// the holder keeps acting while a successor already holds the lease.
    ActAfterRelease,
    /// A partition claim whose answer was lost retried like any failed call, leaving what the
    /// store granted claimed by a live node that never runs it.
    KeepLostClaim,
    /// A partition whose claim lapsed while its node still acts (the claim's answer came late,
    /// and no heartbeat carrying it was confirmed since) stopped and left claimed by the live
    /// node, which never runs it again.
    KeepLapsedClaim,
    /// A leader planning late fires as `misfire = run-all` whatever the job's policy: after a
    /// long downtime it runs up to `catch_up_max` old fires at once.
    ReplayMissedFires,
    /// Fires planned as missed left without a record, while the job's last fire moves past
    /// them: fires lost without a reason.
    ForgetMissedFires,
    /// The simulation's fenced resource accepting every write, whatever its token.
    #[cfg(test)]
    NoFence,
}

#[cfg(test)]
thread_local! {
    static PLANTED: std::cell::Cell<Option<Bug>> = const { std::cell::Cell::new(None) };
}

/// Whether `bug` is planted on this thread; never outside the crate's tests.
#[inline]
pub(crate) fn planted(bug: Bug) -> bool {
    #[cfg(test)]
    return PLANTED.with(|planted| planted.get() == Some(bug));
    #[cfg(not(test))]
    {
        let _ = bug;
        false
    }
}

/// The instant a confirmation by the store counts from: when its call was `sent`, or, with
/// [`Bug::DeadlineFromReceipt`] planted, now that the answer arrived.
pub(crate) fn counted_from(sent: tokio::time::Instant) -> tokio::time::Instant {
    if planted(Bug::DeadlineFromReceipt) { tokio::time::Instant::now() } else { sent }
}

/// Plants `bug` on this thread (the one a simulation runs on), or none.
#[cfg(test)]
pub(crate) fn plant(bug: Option<Bug>) {
    PLANTED.with(|planted| planted.set(bug));
}
