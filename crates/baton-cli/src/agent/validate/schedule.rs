//! A job's or batch's schedule: exactly one of `cron`, `every` and `at`, and `time_zone` for a
//! cron pattern.

use baton::StoreTime;
use baton::core::Schedule;

use super::super::config::ScheduleSpec;
use super::super::error::Problem;
use super::super::locate::KeyPath;
use super::super::schema_values::DurationText;
use super::values::duration;

/// The schedule keys of one table.
pub struct ScheduleKeys<'a> {
    /// `cron`.
    pub cron: Option<&'a str>,
    /// `every`.
    pub every: Option<&'a DurationText>,
    /// `at`.
    pub at: Option<&'a str>,
    /// `time_zone`.
    pub time_zone: Option<&'a str>,
}

/// The schedule of the table at `table`, or `None` when it has none; checked so that the
/// scheduler accepts it.
pub fn schedule(table: &KeyPath, keys: &ScheduleKeys<'_>) -> Result<Option<ScheduleSpec>, Problem> {
    let given: Vec<&str> =
        [("cron", keys.cron.is_some()), ("every", keys.every.is_some()), ("at", keys.at.is_some())]
            .into_iter()
            .filter_map(|(key, set)| set.then_some(key))
            .collect();
    if let [first, second, ..] = given.as_slice() {
        return Err(Problem::at(
            &table.key(second),
            format!("conflicts with {first}: expected exactly one of cron, every or at"),
        ));
    }
    if keys.cron.is_none()
        && let Some(zone) = keys.time_zone
    {
        return Err(Problem::at(
            &table.key("time_zone"),
            format!("time zone {zone:?} without cron: time_zone applies to cron patterns only"),
        ));
    }
    if let Some(expression) = keys.cron {
        let zone = keys.time_zone.unwrap_or("UTC");
        Schedule::cron("* * * * *", zone)
            .map_err(|err| Problem::at(&table.key("time_zone"), err))?;
        Schedule::cron(expression, zone).map_err(|err| Problem::at(&table.key("cron"), err))?;
        let spec = ScheduleSpec::Cron { expression: expression.to_owned(), zone: zone.to_owned() };
        return Ok(Some(spec));
    }
    if let Some(text) = keys.every {
        let key = table.key("every");
        let interval = duration(&key, text)?;
        Schedule::every(interval).map_err(|err| Problem::at(&key, err))?;
        return Ok(Some(ScheduleSpec::Every(interval)));
    }
    if let Some(text) = keys.at {
        let at = StoreTime::parse(text).map_err(|err| Problem::at(&table.key("at"), err))?;
        return Ok(Some(ScheduleSpec::At(at)));
    }
    Ok(None)
}
