//! The C ABI of Cantus dynamic plugins: one versioned function table passing JSON bytes.
//!
//! A dynamic plugin is a shared library (`cdylib`) that exports one `extern "C"`
//! function, [`ENTRY_SYMBOL`] (`cantus_plugin_entry`), returning a pointer to a
//! `'static` [`PluginTable`]. The table's first field is [`PluginTable::abi_version`],
//! so a host can refuse a library built for another version of this ABI before it
//! reads anything else. Everything that crosses the boundary is plain C: NUL-terminated
//! UTF-8 strings for the plugin's identity, and JSON bytes for requests and replies
//! (a `cantus_framework::ModelRequest` in, a `ModelReply` — at least `{"text": …}` — out).
//! No Rust type crosses it, so host and plugin may be built by different compilers.
//!
//! Memory: a [`Buffer`] is allocated by the plugin and must be released with the same
//! plugin's [`PluginTable::free_buffer`]; the host copies the bytes out first.
//!
//! A Rust plugin author never writes `unsafe`: implement [`Plugin`] and call
//! [`export_plugin!`]. The generated glue ([`glue`]) catches panics at the boundary
//! (`catch_unwind`) and turns them into [`STATUS_PANIC`] with the panic message.
//!
//! ```
//! use cantus_plugin_abi::{Plugin, c_str, export_plugin};
//! use std::ffi::CStr;
//!
//! struct Echo;
//! impl Plugin for Echo {
//!     const NAME: &'static CStr = c"echo";
//!     const VERSION: &'static CStr = c_str!(env!("CARGO_PKG_VERSION"));
//!     const KIND: &'static CStr = c"proposer";
//!     const DESCRIPTION: &'static CStr = c"answers with the last message";
//!     fn new() -> Result<Self, String> {
//!         Ok(Echo)
//!     }
//!     fn call(&self, request: serde_json::Value) -> Result<serde_json::Value, String> {
//!         let text = request["messages"][0]["content"].as_str().unwrap_or("");
//!         Ok(serde_json::json!({ "text": text }))
//!     }
//! }
//! export_plugin!(Echo);
//! # fn main() { assert!(!cantus_plugin_entry().is_null()); }
//! ```

pub mod glue;

use std::ffi::{CStr, c_char, c_void};

/// The version of this ABI. Bumped whenever [`PluginTable`], [`Buffer`], the status
/// codes or the meaning of the JSON exchanged change incompatibly.
pub const ABI_VERSION: u32 = 1;

/// The name of the one function a plugin exports: `extern "C" fn() -> *const PluginTable`.
pub const ENTRY_SYMBOL: &str = "cantus_plugin_entry";

/// The type of [`ENTRY_SYMBOL`].
pub type EntryFn = unsafe extern "C" fn() -> *const PluginTable;

/// What a table function returns: one of the `STATUS_*` constants.
pub type Status = i32;
/// Success: the output buffer holds the reply JSON (or, for `init`, the context is set).
pub const STATUS_OK: Status = 0;
/// The plugin refused the request: the output buffer holds a UTF-8 message.
pub const STATUS_ERROR: Status = 1;
/// The plugin panicked; the panic was caught at the boundary and the output buffer
/// holds its message.
pub const STATUS_PANIC: Status = 2;
/// The host passed something unusable (null pointers, bytes that are not JSON): the
/// output buffer, when there is one, holds a UTF-8 message.
pub const STATUS_BAD_INPUT: Status = 3;

/// Bytes allocated by the plugin and handed to the host, who copies them and gives
/// them back through [`PluginTable::free_buffer`].
#[repr(C)]
#[derive(Debug)]
pub struct Buffer {
    /// The first byte; null for an empty buffer.
    pub ptr: *mut u8,
    /// How many bytes.
    pub len: usize,
}

impl Buffer {
    /// No bytes and no allocation; safe to pass to `free_buffer`.
    pub const EMPTY: Buffer = Buffer {
        ptr: std::ptr::null_mut(),
        len: 0,
    };

    /// Hands `bytes` over as a buffer (to be released with [`Buffer::release`] by the
    /// same library that made it).
    pub fn from_vec(bytes: Vec<u8>) -> Buffer {
        if bytes.is_empty() {
            return Buffer::EMPTY;
        }
        let boxed: Box<[u8]> = bytes.into_boxed_slice();
        let len = boxed.len();
        let ptr = Box::into_raw(boxed).cast::<u8>();
        Buffer { ptr, len }
    }

    /// Copies the bytes out.
    ///
    /// # Safety
    /// `self` must be [`Buffer::EMPTY`] or come from [`Buffer::from_vec`] (in any
    /// library) and not have been released.
    pub unsafe fn to_vec(&self) -> Vec<u8> {
        if self.ptr.is_null() || self.len == 0 {
            return Vec::new();
        }
        // SAFETY: by the caller's contract `ptr` points to `len` initialised bytes
        // owned by a live boxed slice.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }.to_vec()
    }

    /// Frees a buffer made by [`Buffer::from_vec`] in this library.
    ///
    /// # Safety
    /// `self` must be [`Buffer::EMPTY`] or come from [`Buffer::from_vec`] in the same
    /// library (same allocator), and be released only once.
    pub unsafe fn release(self) {
        if self.ptr.is_null() || self.len == 0 {
            return;
        }
        let slice = std::ptr::slice_from_raw_parts_mut(self.ptr, self.len);
        // SAFETY: `slice` is exactly the pointer and length `Box::into_raw` produced in
        // `from_vec`, and by contract it has not been freed yet.
        drop(unsafe { Box::from_raw(slice) });
    }
}

/// The table a plugin's entry point returns. `#[repr(C)]`; `abi_version` first.
///
/// All strings are NUL-terminated UTF-8 living as long as the library is loaded.
/// `call` may be invoked from several threads at once with the same context.
#[repr(C)]
#[derive(Debug)]
pub struct PluginTable {
    /// Must equal the host's [`ABI_VERSION`]; checked before any other field is read.
    pub abi_version: u32,
    /// The plugin's name, e.g. `example-serial`.
    pub name: *const c_char,
    /// The plugin's own version, e.g. `0.1.0`.
    pub version: *const c_char,
    /// `backend` (answers prompts) or `proposer` (a symbolic model reading `context`).
    pub kind: *const c_char,
    /// One line for `cantus plugins`.
    pub description: *const c_char,
    /// Creates the plugin's context. On [`STATUS_OK`] `*ctx_out` is set; otherwise
    /// `*error_out` holds a message (release it with `free_buffer`).
    pub init: unsafe extern "C" fn(ctx_out: *mut *mut c_void, error_out: *mut Buffer) -> Status,
    /// Answers one request: `input[..len]` is the request JSON; on return `*out`
    /// holds the reply JSON ([`STATUS_OK`]) or a UTF-8 message (any other status).
    pub call: unsafe extern "C" fn(
        ctx: *mut c_void,
        input: *const u8,
        len: usize,
        out: *mut Buffer,
    ) -> Status,
    /// Releases a buffer this plugin returned.
    pub free_buffer: unsafe extern "C" fn(buffer: Buffer),
    /// Destroys a context made by `init`; called once, after the last `call`.
    pub drop: unsafe extern "C" fn(ctx: *mut c_void),
}

// SAFETY: a table is immutable after construction; its string pointers point to
// `'static` NUL-terminated data in the library, and function pointers are plain code
// addresses. Sharing it between threads cannot race.
unsafe impl Sync for PluginTable {}

impl PluginTable {
    /// The table for plugin type `P`; what [`export_plugin!`] puts in a `static`.
    pub const fn of<P: Plugin>() -> PluginTable {
        PluginTable {
            abi_version: ABI_VERSION,
            name: P::NAME.as_ptr(),
            version: P::VERSION.as_ptr(),
            kind: P::KIND.as_ptr(),
            description: P::DESCRIPTION.as_ptr(),
            init: glue::init::<P>,
            call: glue::call::<P>,
            free_buffer: glue::free_buffer,
            drop: glue::drop::<P>,
        }
    }
}

/// A dynamic plugin written in Rust: its identity and one JSON-in, JSON-out call.
///
/// `call` receives the request as JSON (a `ModelRequest`: `messages`, `constraint`,
/// `sampling`, `context`) and returns the reply as JSON (a `ModelReply`: at least
/// `{"text": "…"}`), or an error message. It may be called from several threads at
/// once. A panic is caught at the boundary and reported to the host as an error.
pub trait Plugin: Sized + Send + Sync + 'static {
    /// Name shown by `cantus plugins` and in traces.
    const NAME: &'static CStr;
    /// The plugin's version (see [`c_str!`] for `env!("CARGO_PKG_VERSION")`).
    const VERSION: &'static CStr;
    /// `backend` or `proposer`.
    const KIND: &'static CStr;
    /// One line describing what the plugin does.
    const DESCRIPTION: &'static CStr;
    /// Builds the plugin when the host loads it.
    fn new() -> Result<Self, String>;
    /// Answers one request.
    fn call(&self, request: serde_json::Value) -> Result<serde_json::Value, String>;
}

/// A `&'static CStr` from a string literal or `env!(…)`, checked at compile time:
/// `c_str!(env!("CARGO_PKG_VERSION"))`.
#[macro_export]
macro_rules! c_str {
    ($s:expr) => {
        match ::std::ffi::CStr::from_bytes_with_nul(concat!($s, "\0").as_bytes()) {
            Ok(c) => c,
            Err(_) => panic!("c_str!: the string contains a NUL byte"),
        }
    };
}

/// Exports plugin type `$plugin` (implementing [`Plugin`]) as this library's
/// `cantus_plugin_entry`. Use once per `cdylib`.
#[macro_export]
macro_rules! export_plugin {
    ($plugin:ty) => {
        /// The Cantus plugin entry point: returns this library's function table.
        #[unsafe(no_mangle)]
        pub extern "C" fn cantus_plugin_entry() -> *const $crate::PluginTable {
            static TABLE: $crate::PluginTable = $crate::PluginTable::of::<$plugin>();
            &TABLE
        }
    };
}

/// Reads a table string; `None` when the pointer is null or the bytes are not UTF-8.
///
/// # Safety
/// `ptr` must be null or point to a NUL-terminated string that stays alive and
/// unchanged while the result is used.
pub unsafe fn table_str<'a>(ptr: *const c_char) -> Option<&'a str> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null, and NUL-terminated and alive by the caller's contract.
    unsafe { CStr::from_ptr(ptr) }.to_str().ok()
}
