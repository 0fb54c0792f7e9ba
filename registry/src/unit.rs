//! The registered unit: a domain's plugin builds it once, and the program finds it
//! by name.

use crate::DomainId;
use crate::artefact::{Artefact, ArtefactKind, KindOf};
use crate::compose::Compose;
use crate::review::Review;
use crate::teach::{Erased, Teach, Teaching};
use crate::trials::Trials;
use crate::verify::Verify;
use std::sync::OnceLock;

/// A rule domain, as the program sees it. A domain crate implements this for a
/// unit struct and registers it with [`register!`](crate::register); the program,
/// the renderer and the experiment runner find it by its id.
///
/// [`DomainPlugin::build`] is called once, the first time the registry is read, and
/// says what the domain offers by filling in a [`Unit`]: every capability is
/// optional, and a command asking for one the domain has not registered says so.
pub trait DomainPlugin: Sync + 'static {
    /// The domain's id: `--domain <id>`, the `domain` of its reports and records.
    fn id(&self) -> DomainId;
    /// Registers what the domain offers.
    fn build(&self, unit: &mut Unit);
}

/// A proposer a domain brings, as `cantus plugins` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProposerInfo {
    /// `<domain>/<name>` (`twelve-tone/embedded`).
    pub name: String,
    pub description: &'static str,
}

/// A subcommand that is `cantus compose --domain <id>` under a name of its own
/// (`cantus example` for the example domain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shortcut {
    pub command: &'static str,
    pub about: &'static str,
}

/// A registered domain: what its plugin built.
pub struct Unit {
    id: DomainId,
    summary: &'static str,
    version: &'static str,
    default: bool,
    compose: Option<Box<dyn Compose>>,
    verify: Option<Box<dyn Verify>>,
    artefact: Option<Box<dyn ArtefactKind>>,
    review: Option<Box<dyn Review>>,
    trials: Option<Box<dyn Trials>>,
    teach: Option<Box<dyn Teaching>>,
    proposers: Vec<ProposerInfo>,
    shortcuts: Vec<Shortcut>,
}

/// A capability a domain did not register.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {domain} domain {what}")]
pub struct Missing {
    pub domain: DomainId,
    /// What it does not do: `composes nothing`, `verifies no files`, ….
    pub what: &'static str,
}

impl Unit {
    fn new(id: DomainId, default: bool) -> Unit {
        Unit {
            id,
            summary: "",
            version: "",
            default,
            compose: None,
            verify: None,
            artefact: None,
            review: None,
            trials: None,
            teach: None,
            proposers: Vec::new(),
            shortcuts: Vec::new(),
        }
    }

    /// One line saying what the domain is, and its crate's version
    /// (`env!("CARGO_PKG_VERSION")`), for `cantus plugins`.
    pub fn describe(&mut self, summary: &'static str, version: &'static str) -> &mut Unit {
        self.summary = summary;
        self.version = version;
        self
    }

    /// Registers the domain's composer (`cantus compose --domain <id>`).
    pub fn compose(&mut self, composer: impl Compose + 'static) -> &mut Unit {
        self.compose = Some(Box::new(composer));
        self
    }

    /// Registers the domain's verifier (`cantus verify --domain <id>`).
    pub fn verify(&mut self, verifier: impl Verify + 'static) -> &mut Unit {
        self.verify = Some(Box::new(verifier));
        self
    }

    /// Registers the domain's artefact type: how its runs write and read it back.
    pub fn artefact<A: Artefact>(&mut self) -> &mut Unit {
        self.artefact = Some(Box::new(KindOf::<A>::new()));
        self
    }

    /// Registers how the renderer reviews the domain's artefacts.
    pub fn review(&mut self, review: impl Review + 'static) -> &mut Unit {
        self.review = Some(Box::new(review));
        self
    }

    /// Registers the domain's experiment task sets and trials (`cantus experiment`
    /// with `[tasks] domain = "<id>"`).
    pub fn trials(&mut self, trials: impl Trials + 'static) -> &mut Unit {
        self.trials = Some(Box::new(trials));
        self
    }

    /// Registers the concepts the domain teaches (`cantus teach`).
    pub fn teach(&mut self, teach: impl Teach) -> &mut Unit {
        self.teach = Some(Box::new(Erased(teach)));
        self
    }

    /// Lists a proposer the domain brings (`name` without the domain's prefix).
    pub fn proposer(&mut self, name: &str, description: &'static str) -> &mut Unit {
        let name = format!("{}/{name}", self.id);
        self.proposers.push(ProposerInfo { name, description });
        self
    }

    /// Adds `cantus <command>` as `cantus compose --domain <id>`.
    pub fn shortcut(&mut self, command: &'static str, about: &'static str) -> &mut Unit {
        self.shortcuts.push(Shortcut { command, about });
        self
    }

    /// The domain's id.
    pub fn id(&self) -> &DomainId {
        &self.id
    }

    /// What the domain is, in one line.
    pub fn summary(&self) -> &'static str {
        self.summary
    }

    /// The version of the crate that registered it.
    pub fn version(&self) -> &'static str {
        self.version
    }

    /// Whether it is the program's default domain.
    pub fn is_default(&self) -> bool {
        self.default
    }

    fn missing(&self, what: &'static str) -> Missing {
        Missing {
            domain: self.id.clone(),
            what,
        }
    }

    /// Its composer.
    pub fn composer(&self) -> Result<&dyn Compose, Missing> {
        self.compose
            .as_deref()
            .ok_or_else(|| self.missing("composes nothing"))
    }

    /// Its verifier.
    pub fn verifier(&self) -> Result<&dyn Verify, Missing> {
        self.verify
            .as_deref()
            .ok_or_else(|| self.missing("verifies no files"))
    }

    /// Its artefact kind.
    pub fn artefact_kind(&self) -> Result<&dyn ArtefactKind, Missing> {
        self.artefact
            .as_deref()
            .ok_or_else(|| self.missing("names no artefact type"))
    }

    /// How its artefacts are reviewed.
    pub fn reviewer(&self) -> Result<&dyn Review, Missing> {
        self.review
            .as_deref()
            .ok_or_else(|| self.missing("has no review for the renderer"))
    }

    /// Its experiment task sets and trials.
    pub fn trial_sets(&self) -> Result<&dyn Trials, Missing> {
        self.trials
            .as_deref()
            .ok_or_else(|| self.missing("runs in no experiment (it registers no trials)"))
    }

    /// The concepts it teaches.
    pub fn teaching(&self) -> Result<&dyn Teaching, Missing> {
        self.teach
            .as_deref()
            .ok_or_else(|| self.missing("teaches no concepts"))
    }

    /// The proposers it brings.
    pub fn proposers(&self) -> &[ProposerInfo] {
        &self.proposers
    }

    /// Its subcommands.
    pub fn shortcuts(&self) -> &[Shortcut] {
        &self.shortcuts
    }
}

/// A plugin submitted to the registry; made by [`register!`](crate::register).
pub struct Registration {
    plugin: &'static dyn DomainPlugin,
    default: bool,
}

impl Registration {
    /// A domain.
    pub const fn new(plugin: &'static dyn DomainPlugin) -> Registration {
        Registration {
            plugin,
            default: false,
        }
    }

    /// The program's default domain (what `--domain` is when not given, and what a
    /// bare score no domain recognises is judged by).
    pub const fn default(plugin: &'static dyn DomainPlugin) -> Registration {
        Registration {
            plugin,
            default: true,
        }
    }
}

inventory::collect!(Registration);

/// Registers a domain's plugin (a constant of a type implementing
/// [`DomainPlugin`]); `register!(default PLUGIN)` makes it the program's default.
///
/// ```ignore
/// cantus_registry::register!(CyclesPlugin);
/// ```
#[macro_export]
macro_rules! register {
    (default $plugin:expr) => {
        $crate::inventory::submit! { $crate::Registration::default(&$plugin) }
    };
    ($plugin:expr) => {
        $crate::inventory::submit! { $crate::Registration::new(&$plugin) }
    };
}

/// A domain id the registry does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown domain `{id}` ({})",
    if known.is_empty() { "no domain is registered: link a domain crate into the program".to_owned() } else { format!("registered: {known}") }
)]
pub struct UnknownDomain {
    pub id: String,
    /// The registered ids, comma-separated.
    pub known: String,
}

/// Every registered domain, built once, sorted by id. A registration whose id is
/// not well formed, or repeats an id already registered, is left out (and named on
/// standard error): the registry never holds two domains of one name.
pub fn domains() -> &'static [Unit] {
    static UNITS: OnceLock<Vec<Unit>> = OnceLock::new();
    UNITS.get_or_init(|| {
        let mut regs: Vec<&Registration> = inventory::iter::<Registration>.into_iter().collect();
        regs.sort_by_key(|r| r.plugin.id());
        let mut units: Vec<Unit> = Vec::with_capacity(regs.len());
        for r in regs {
            let id = r.plugin.id();
            if !id.is_well_formed() || units.iter().any(|u| u.id == id) {
                eprintln!("warning: domain `{id}` registered twice or badly named; left out");
                continue;
            }
            let mut unit = Unit::new(id, r.default);
            r.plugin.build(&mut unit);
            units.push(unit);
        }
        units
    })
}

/// The domain registered as `id`.
pub fn find(id: &str) -> Result<&'static Unit, UnknownDomain> {
    domains()
        .iter()
        .find(|u| u.id == id)
        .ok_or_else(|| UnknownDomain {
            id: id.to_owned(),
            known: domains()
                .iter()
                .map(|u| u.id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// The program's default domain: the one registered with `register!(default …)`
/// (the first by id, should two be), else the first registered.
pub fn default_domain() -> Option<&'static Unit> {
    domains()
        .iter()
        .find(|u| u.default)
        .or_else(|| domains().first())
}

/// The extensions of every registered domain's artefact files: what a run folder
/// may hold besides its report, trace, spec and reply.
pub fn artefact_extensions() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = domains()
        .iter()
        .filter_map(|u| u.artefact.as_deref())
        .flat_map(|a| a.extensions().iter().copied())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The domain of a run: the one its report or trace header names (the `domain`
/// field), else the first whose review recognises `score`, else the default.
/// A named domain the registry does not know is an error, never a guess.
pub fn domain_of_run(
    named: Option<&str>,
    score: Option<&cantus_music::Score>,
) -> Result<&'static Unit, UnknownDomain> {
    if let Some(id) = named {
        return find(id);
    }
    let recognised = score.and_then(|s| {
        domains()
            .iter()
            .find(|u| u.review.as_ref().is_some_and(|r| r.recognises(s)))
    });
    recognised
        .or_else(default_domain)
        .ok_or_else(|| UnknownDomain {
            id: "(none)".into(),
            known: String::new(),
        })
}
