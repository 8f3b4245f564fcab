//! `baton migrate` says what it applied: every migration on a fresh store, none on a current
//! one.

mod common;

use common::{stdout, store};

#[test]
fn migrate_names_what_it_applied_then_that_nothing_was_left() {
    let s = store();
    let first = s.run(&["migrate"]);
    assert!(first.status.success(), "{first:?}");
    let printed = stdout(&first);
    let applied = printed.lines().next().expect("a line per store");
    assert!(applied.starts_with("SQLite: applied "), "{printed}");
    assert!(applied.contains(" migrations: 0001 "), "{printed}");
    assert!(printed.contains("schema is up to date on sqlite://"), "{printed}");

    let again = s.run(&["migrate"]);
    assert!(again.status.success(), "{again:?}");
    assert!(stdout(&again).starts_with("SQLite: no migration to apply\n"), "{}", stdout(&again));
}
