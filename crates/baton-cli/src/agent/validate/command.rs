//! A command: `command` (program then arguments), `working_dir` and `env`.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::config::CommandSpec;
use super::super::error::Problem;
use super::super::locate::KeyPath;

/// The command keys of one table.
pub struct CommandKeys<'a> {
    /// `command`.
    pub command: Option<&'a [String]>,
    /// `working_dir`.
    pub working_dir: Option<&'a str>,
    /// `env`.
    pub env: &'a BTreeMap<String, String>,
}

/// The command of the table at `table`. A relative `working_dir` is read from `base`, the
/// config file's directory; it must exist and be readable.
pub fn command(
    table: &KeyPath,
    keys: &CommandKeys<'_>,
    base: &Path,
) -> Result<CommandSpec, Problem> {
    let key = table.key("command");
    let argv = match keys.command {
        None => {
            return Err(Problem::at(
                &key,
                r#"missing: expected the program and its arguments, such as ["./report.sh", "--daily"]"#,
            ));
        }
        Some([]) => {
            return Err(Problem::at(&key, "empty: expected the program, then its arguments"));
        }
        Some(argv) => argv,
    };
    if argv[0].is_empty() {
        return Err(Problem::at(&key.index(0), "empty program: expected a program name or path"));
    }
    if let Some(i) = argv.iter().position(|arg| arg.contains('\0')) {
        return Err(Problem::at(&key.index(i), "contains a NUL byte: expected plain text"));
    }
    let working_dir = keys.working_dir.map(|dir| working_dir(&table.key("working_dir"), dir, base));
    let env = table.key("env");
    for (name, value) in keys.env {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(Problem::at(
                &env,
                format!(
                    "invalid variable name {}: expected a non-empty name without '=' or NUL",
                    baton::core::echo::quoted(name)
                ),
            ));
        }
        if value.contains('\0') {
            return Err(Problem::at(&env.key(name), "contains a NUL byte: expected plain text"));
        }
    }
    Ok(CommandSpec {
        argv: argv.to_vec(),
        working_dir: working_dir.transpose()?,
        env: keys.env.clone(),
    })
}

fn working_dir(key: &KeyPath, dir: &str, base: &Path) -> Result<std::path::PathBuf, Problem> {
    let path = base.join(dir);
    match std::fs::read_dir(&path) {
        Ok(_) => Ok(path),
        Err(err) => Err(Problem::at(
            key,
            format!(
                "cannot read directory {:?} ({err}): expected an existing, readable directory",
                path.display().to_string()
            ),
        )),
    }
}
