//! The command line of the small probes (`vm-freezes`, `pread-cost`):
//! flags as `--name value` or `--name=value`, read one at a time, and
//! numbers parsed with an error naming the flag. Each probe includes this
//! file as a module (`#[path]`); talus-bench's own flags are in `flags.rs`.

use std::str::FromStr;

/// The arguments after the program name.
pub struct ProbeArgs {
    args: std::iter::Skip<std::env::Args>,
}

/// One argument: `name` (the whole argument when it holds no `=`), the
/// value given inline after `=`, and the argument as written.
pub struct Arg {
    pub name: String,
    inline: Option<String>,
    pub raw: String,
}

impl ProbeArgs {
    /// This process's arguments.
    pub fn from_env() -> ProbeArgs {
        ProbeArgs {
            args: std::env::args().skip(1),
        }
    }

    /// The next argument, or `None` after the last.
    pub fn next_arg(&mut self) -> Option<Arg> {
        let raw = self.args.next()?;
        let (name, inline) = match raw.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (raw.clone(), None),
        };
        Some(Arg { name, inline, raw })
    }

    /// The value of flag `arg`: the one given inline, or the next argument.
    pub fn value(&mut self, arg: &Arg) -> Result<String, String> {
        arg.inline
            .clone()
            .or_else(|| self.args.next())
            .ok_or_else(|| format!("{} needs a value", arg.name))
    }

    /// The value of flag `arg`, parsed as a `T`.
    pub fn num<T: FromStr>(&mut self, arg: &Arg) -> Result<T, String> {
        let v = self.value(arg)?;
        parse_num(&v, &arg.name)
    }
}

/// `v` parsed as a `T`, or an error naming flag `name`.
pub fn parse_num<T: FromStr>(v: &str, name: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("{name}: not a number: {v:?}"))
}

/// The parsed command line, or the exit a probe makes on bad usage: the
/// error (none for `--help`) and `usage` on stderr, exit status 2.
pub fn or_usage<T>(parsed: Result<T, String>, program: &str, usage: &str) -> T {
    parsed.unwrap_or_else(|e| {
        if !e.is_empty() {
            eprintln!("{program}: {e}");
        }
        eprintln!("{usage}");
        std::process::exit(2);
    })
}
