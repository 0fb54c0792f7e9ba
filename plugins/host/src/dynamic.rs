//! Dynamic plugins: a shared library exporting the C ABI of `cantus-plugin-abi`.
//!
//! Loading checks, in this order, that the library opens, that it exports
//! `cantus_plugin_entry`, that the table pointer is not null, and that the table's
//! `abi_version` is this host's — before any other field is read, since a table of
//! another version may have another layout. A [`DynamicPlugin`] owns the
//! `libloading::Library`, and every backend and every call in flight holds an
//! `Arc<DynamicPlugin>`, so the library is never unloaded while in use (a call that
//! outlives its timeout keeps it loaded until it returns). Calls run on tokio's
//! blocking pool so a slow plugin never stalls the runtime.

use crate::reply::reply_from_json;
use cantus_backend::PluginInfo;
use cantus_framework::{ModelBackend, ModelError, ModelReply, ModelRequest};
use cantus_plugin_abi::{
    ABI_VERSION, Buffer, ENTRY_SYMBOL, EntryFn, PluginTable, STATUS_OK, STATUS_PANIC, table_str,
};
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Refuses a table of another ABI version, naming both versions.
pub fn check_abi_version(path: &Path, found: u32) -> Result<(), ModelError> {
    if found == ABI_VERSION {
        return Ok(());
    }
    Err(ModelError::Plugin(format!(
        "{}: the plugin was built for Cantus plugin ABI version {found}, but this Cantus \
         speaks ABI version {ABI_VERSION}; rebuild the plugin against cantus-plugin-abi \
         with ABI_VERSION {ABI_VERSION}",
        path.display()
    )))
}

/// A loaded plugin library, its table and its context.
pub struct DynamicPlugin {
    table: *const PluginTable,
    ctx: *mut c_void,
    info: PluginInfo,
    path: PathBuf,
    /// Declared last so it is dropped after `Drop::drop` has destroyed the context.
    _library: libloading::Library,
}

// SAFETY: the ABI requires `call` to be safe from several threads at once with one
// context (`Plugin: Send + Sync` for Rust plugins), the table is immutable `'static`
// data of the library, which this value keeps loaded, and `drop` runs once, from
// `Drop`, when no call can be in flight (every call holds an `Arc` of this value).
unsafe impl Send for DynamicPlugin {}
// SAFETY: as for `Send`.
unsafe impl Sync for DynamicPlugin {}

impl std::fmt::Debug for DynamicPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicPlugin")
            .field("path", &self.path)
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

/// An error and its sources, `outer: inner: …` (libloading keeps the system's
/// message, e.g. dlopen's, in the source).
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        text.push_str(&format!(": {inner}"));
        source = inner.source();
    }
    text
}

/// Reads one identity string of a table whose version has been checked.
fn identity_field(
    path: &Path,
    field: &str,
    ptr: *const std::ffi::c_char,
) -> Result<String, ModelError> {
    // SAFETY: the table's version is ours, so its string fields are null or
    // NUL-terminated `'static` strings of the library, which is loaded.
    match unsafe { table_str(ptr) } {
        Some(s) if !s.trim().is_empty() => Ok(s.to_string()),
        _ => Err(ModelError::Plugin(format!(
            "{}: the plugin table's `{field}` is null, empty or not UTF-8",
            path.display()
        ))),
    }
}

impl DynamicPlugin {
    /// Opens the library at `path`, checks its ABI version and starts the plugin.
    pub fn load(path: &Path) -> Result<DynamicPlugin, ModelError> {
        let shown = path.display();
        // SAFETY: opening a library runs its initialisers; loading a plugin named in
        // the user's own config file is exactly the trust this feature asks for.
        let library = unsafe { libloading::Library::new(path) }.map_err(|e| {
            ModelError::Plugin(format!("cannot load dynamic plugin {shown}: {}", chain(&e)))
        })?;
        // SAFETY: `EntryFn` is the documented type of `cantus_plugin_entry`.
        let entry = unsafe { library.get::<EntryFn>(ENTRY_SYMBOL) }.map_err(|e| {
            ModelError::Plugin(format!(
                "{shown} is not a Cantus plugin: it exports no `{ENTRY_SYMBOL}` ({})",
                chain(&e)
            ))
        })?;
        // SAFETY: the entry point takes nothing and returns a pointer to a static table.
        let table = unsafe { entry() };
        if table.is_null() {
            return Err(ModelError::Plugin(format!(
                "{shown}: `{ENTRY_SYMBOL}` returned a null table"
            )));
        }
        // SAFETY: every ABI version starts the table with a `u32` version, so reading
        // just that field is valid whatever the rest of the layout is.
        let found = unsafe { table.cast::<u32>().read() };
        check_abi_version(path, found)?;
        // SAFETY: the version matches, so this is a `PluginTable` of our layout,
        // static in the library, which stays loaded while `library` lives.
        let t = unsafe { &*table };
        let info = PluginInfo {
            kind: identity_field(path, "kind", t.kind)?,
            name: identity_field(path, "name", t.name)?,
            version: identity_field(path, "version", t.version)?,
            origin: format!("dynamic: {shown}"),
            description: identity_field(path, "description", t.description)?,
        };
        let mut ctx: *mut c_void = std::ptr::null_mut();
        let mut error = Buffer::EMPTY;
        // SAFETY: both out-pointers are valid locals; `init` is the table's.
        let status = unsafe { (t.init)(&mut ctx, &mut error) };
        // SAFETY: `error` was filled by this table or left empty; released once by it.
        let message = unsafe { take(t, error) };
        if status != STATUS_OK {
            return Err(ModelError::Plugin(format!(
                "{shown}: plugin `{}` failed to start: {}",
                info.name,
                String::from_utf8_lossy(&message)
            )));
        }
        Ok(DynamicPlugin {
            table,
            ctx,
            info,
            path: path.to_path_buf(),
            _library: library,
        })
    }

    /// Who the plugin says it is.
    pub fn info(&self) -> &PluginInfo {
        &self.info
    }

    /// Sends request JSON and returns the reply JSON (blocking; may take long).
    pub fn call_json(&self, request: &[u8]) -> Result<Vec<u8>, ModelError> {
        // SAFETY: the table was checked at load and the library is alive (owned by self).
        let t = unsafe { &*self.table };
        let mut out = Buffer::EMPTY;
        // SAFETY: `ctx` came from this table's `init` and is dropped only in `Drop`;
        // the input slice and `out` are valid for the duration of the call.
        let status = unsafe { (t.call)(self.ctx, request.as_ptr(), request.len(), &mut out) };
        // SAFETY: `out` was filled by this table or left empty; released once by it.
        let bytes = unsafe { take(t, out) };
        if status == STATUS_OK {
            return Ok(bytes);
        }
        let what = if status == STATUS_PANIC {
            "panicked"
        } else {
            "refused the request"
        };
        Err(ModelError::Plugin(format!(
            "plugin `{}` {what} (status {status}): {}",
            self.info.name,
            String::from_utf8_lossy(&bytes)
        )))
    }
}

/// Copies a buffer out and gives it back to the plugin that made it.
///
/// # Safety
/// `buffer` must be empty or have been returned by `table`'s `init` or `call`, and not
/// released yet.
unsafe fn take(table: &PluginTable, buffer: Buffer) -> Vec<u8> {
    // SAFETY: forwarded caller contract.
    let bytes = unsafe { buffer.to_vec() };
    // SAFETY: forwarded caller contract; released exactly once, here.
    unsafe { (table.free_buffer)(buffer) };
    bytes
}

impl Drop for DynamicPlugin {
    fn drop(&mut self) {
        // SAFETY: the table is valid while `_library` lives (dropped after this body);
        // no call is in flight because every call holds an `Arc<DynamicPlugin>`.
        unsafe { ((*self.table).drop)(self.ctx) };
    }
}

/// A [`ModelBackend`] answering through a dynamic plugin.
#[derive(Debug, Clone)]
pub struct DynamicBackend {
    plugin: Arc<DynamicPlugin>,
    /// `None`: the caller bounds each call (the registry's `Deadline` wrapper).
    timeout: Option<Duration>,
}

impl DynamicBackend {
    /// A backend calling `plugin`, giving up on a call after `timeout`.
    pub fn new(plugin: Arc<DynamicPlugin>, timeout: Duration) -> Self {
        DynamicBackend {
            plugin,
            timeout: Some(timeout),
        }
    }

    /// A backend calling `plugin` with no time limit of its own: its caller bounds each
    /// call (as `cantus_backend::build` does with a `Deadline`). A call whose caller
    /// stops waiting is abandoned as at a timeout; the library stays loaded until it
    /// returns.
    pub fn without_timeout(plugin: Arc<DynamicPlugin>) -> Self {
        DynamicBackend {
            plugin,
            timeout: None,
        }
    }

    /// The plugin's identity.
    pub fn info(&self) -> &PluginInfo {
        self.plugin.info()
    }
}

#[async_trait::async_trait]
impl ModelBackend for DynamicBackend {
    fn name(&self) -> String {
        format!("dynamic:{}", self.plugin.info.name)
    }

    async fn complete(&self, request: &ModelRequest) -> Result<ModelReply, ModelError> {
        let started = Instant::now();
        let bytes = serde_json::to_vec(request)
            .map_err(|e| ModelError::Plugin(format!("cannot write the request as JSON: {e}")))?;
        let plugin = Arc::clone(&self.plugin);
        let call = tokio::task::spawn_blocking(move || plugin.call_json(&bytes));
        let name = &self.plugin.info.name;
        // Dropping `call` (here at the timeout, or with this future when the caller
        // stops waiting) detaches the blocking thread; it holds the plugin until it returns.
        let joined = match self.timeout {
            None => call.await,
            Some(timeout) => match tokio::time::timeout(timeout, call).await {
                Ok(joined) => joined,
                Err(_) => {
                    return Err(ModelError::Plugin(format!(
                        "plugin `{name}` gave no reply within {:.1} s; the call was abandoned \
                         (the library stays loaded until it returns)",
                        timeout.as_secs_f64()
                    )));
                }
            },
        };
        let reply = joined.map_err(|e| {
            ModelError::Plugin(format!("plugin `{name}`: the call thread failed: {e}"))
        })??;
        let value: serde_json::Value = serde_json::from_slice(&reply).map_err(|e| {
            ModelError::Plugin(format!(
                "plugin `{name}` answered bytes that are not JSON: {e}"
            ))
        })?;
        reply_from_json(value, name, started)
    }
}
