//! Running `d9lens` as a person at a terminal does: its stderr on a
//! pseudo-terminal (util-linux `script`), its stdout discarded.

use std::process::Command;

/// What `d9lens ARGS` writes to a terminal's screen from stderr; `env` sets
/// up the command (its environment) before it runs.
pub fn stderr_on_a_terminal(args: &[&str], env: impl FnOnce(&mut Command)) -> String {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_d9lens"))
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("{} > /dev/null", quoted.join(" ")), "/dev/null"]);
    env(&mut cmd);
    let out = cmd.output().expect("run d9lens under script");
    String::from_utf8_lossy(&out.stdout).into_owned()
}
