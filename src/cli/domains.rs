//! The registered domains' flags on the command line: every domain's option table
//! (`cantus_registry::Opt`) becomes arguments of the command it belongs to, listed
//! under the domain's name in `--help`, and the values given come back as the chosen
//! domain's checked `Args`. Nothing here knows a domain.

use cantus_registry::{Args, ArgsError, Opt, Unit};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use std::ffi::OsString;

/// Which command's table: `compose` or `verify`.
pub type Table = fn(&'static Unit) -> Option<&'static [Opt]>;

/// The table of `cantus compose`.
pub fn compose_table(unit: &'static Unit) -> Option<&'static [Opt]> {
    unit.composer().ok().map(|c| c.options())
}

/// The table of `cantus verify`.
pub fn verify_table(unit: &'static Unit) -> Option<&'static [Opt]> {
    unit.verifier().ok().map(|v| v.options())
}

/// `--domain`'s possible values (the domains that have `table`) and its default.
pub fn domain_arg(command: Command, table: Table) -> Command {
    let ids: Vec<&'static str> = cantus_registry::domains()
        .iter()
        .filter(|u| table(u).is_some())
        .map(|u| u.id().as_str())
        .collect();
    let default = cantus_registry::default_domain().map(|u| u.id().as_str());
    command.mut_arg("domain", |arg| {
        let arg = arg.value_parser(clap::builder::PossibleValuesParser::new(ids));
        match default {
            Some(d) => arg.default_value(d).required(false),
            None => arg,
        }
    })
}

/// `command` with every registered domain's flags of `table` (only `only`'s, when
/// given: a shortcut's subcommand). A flag two domains declare is one argument; a
/// flag named like one of the command's own is left out (a test holds the
/// registered domains to that).
pub fn add_options(mut command: Command, table: Table, only: Option<&'static Unit>) -> Command {
    let mut added: Vec<(&'static str, String)> = Vec::new();
    for unit in cantus_registry::domains() {
        if only.is_some_and(|o| !std::ptr::eq(o, unit)) {
            continue;
        }
        let Some(options) = table(unit) else { continue };
        for opt in options {
            if let Some((_, owner)) = added.iter_mut().find(|(n, _)| *n == opt.name) {
                owner.push_str(&format!(", {}", unit.id()));
                continue;
            }
            if command.get_arguments().any(|a| a.get_id() == opt.name) {
                continue;
            }
            added.push((opt.name, unit.id().to_string()));
            command = command.arg(argument(opt, unit));
        }
    }
    command
}

fn argument(opt: &'static Opt, unit: &'static Unit) -> Arg {
    let arg = Arg::new(opt.name)
        .long(opt.name)
        .help(opt.full_help())
        .help_heading(format!("{} options", unit.id()));
    if opt.takes_value() {
        arg.value_name(opt.value_name)
            .value_parser(clap::value_parser!(OsString))
            .action(ArgAction::Set)
    } else {
        arg.action(ArgAction::SetTrue)
    }
}

/// Whether argument `id` was given on the command line (not defaulted).
pub fn given_on_command_line(matches: &ArgMatches, id: &str) -> bool {
    matches.try_get_raw(id).is_ok_and(|v| v.is_some())
        && matches.value_source(id) == Some(ValueSource::CommandLine)
}

/// The chosen domain's flags as given, checked against its table: a flag another
/// domain declares is refused naming its owners. `program` are the command's own
/// flags, for conflicts (`--revise` with `--raw`).
pub fn args_of(
    matches: &ArgMatches,
    unit: &'static Unit,
    table: Table,
    program: &[&str],
) -> Result<Args, ArgsError> {
    let options = table(unit).unwrap_or_default();
    for other in cantus_registry::domains() {
        let Some(their) = table(other) else { continue };
        for opt in their {
            let ours = options.iter().any(|o| o.name == opt.name);
            if !ours && given_on_command_line(matches, opt.name) {
                let owners = cantus_registry::domains()
                    .iter()
                    .filter(|u| table(u).is_some_and(|t| t.iter().any(|o| o.name == opt.name)))
                    .map(|u| u.id().to_string())
                    .collect();
                return Err(ArgsError::Unknown {
                    flag: format!("--{}", opt.name),
                    domain: unit.id().to_string(),
                    owners,
                });
            }
        }
    }
    let given = options
        .iter()
        .filter(|o| given_on_command_line(matches, o.name))
        .map(|o| {
            let value = o
                .takes_value()
                .then(|| matches.get_one::<OsString>(o.name).cloned())
                .flatten();
            (o.name.to_owned(), value)
        });
    let others: Vec<&str> = program
        .iter()
        .copied()
        .filter(|id| matches.value_source(id) == Some(ValueSource::CommandLine))
        .collect();
    Args::parse(options, unit.id().as_str(), given, &others)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_with_every_registered_domain_is_well_formed() {
        super::super::command().debug_assert();
    }

    /// A domain's flag named like one of the command's own would be left out, and a
    /// flag two domains declare must take a value in both or in neither.
    #[test]
    fn registered_flags_neither_shadow_the_programs_nor_disagree() {
        let base = <super::super::Cli as clap::CommandFactory>::command();
        for (command, table) in [
            ("compose", compose_table as Table),
            ("verify", verify_table as Table),
        ] {
            let own = base.find_subcommand(command).expect("a subcommand");
            for unit in cantus_registry::domains() {
                for opt in table(unit).unwrap_or_default() {
                    assert!(
                        own.get_arguments().all(|a| a.get_id() != opt.name),
                        "{}: --{} of {command} is the program's own",
                        unit.id(),
                        opt.name
                    );
                    for other in cantus_registry::domains() {
                        for theirs in table(other).unwrap_or_default() {
                            assert!(
                                theirs.name != opt.name
                                    || theirs.takes_value() == opt.takes_value(),
                                "--{} of {command}: {} and {} disagree on its value",
                                opt.name,
                                unit.id(),
                                other.id()
                            );
                        }
                    }
                }
            }
        }
    }
}
