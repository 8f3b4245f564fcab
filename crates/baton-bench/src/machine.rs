//! The machine a scenario runs on, for the report: cores and load, since the nodes, the store
//! and anything else running share the same processors.

/// "2 cores, load average 1.52 1.20 0.98" (the load is left out where it cannot be read).
pub(crate) fn describe() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    match load() {
        Some(load) => format!("{cores} cores, load average {load}"),
        None => format!("{cores} cores"),
    }
}

/// The 1, 5 and 15 minute load averages, as the kernel prints them.
fn load() -> Option<String> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let fields: Vec<&str> = text.split_whitespace().take(3).collect();
    (fields.len() == 3).then(|| fields.join(" "))
}
