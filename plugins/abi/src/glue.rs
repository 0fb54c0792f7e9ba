//! The `extern "C"` functions [`crate::export_plugin!`] puts in a plugin's table.
//!
//! They exist so that a plugin author writes only safe Rust: every pointer check,
//! JSON (de)serialisation, buffer hand-over and `catch_unwind` happens here, once. A
//! panic never unwinds into the host (which would abort the process): it becomes
//! [`STATUS_PANIC`] with the panic's message.

use crate::{Buffer, Plugin, STATUS_BAD_INPUT, STATUS_ERROR, STATUS_OK, STATUS_PANIC, Status};
use std::any::Any;
use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The text of a caught panic.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("the plugin panicked: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("the plugin panicked: {s}")
    } else {
        "the plugin panicked".to_string()
    }
}

/// Writes `bytes` to `out` when `out` is usable.
///
/// # Safety
/// `out` must be null or valid for writes of one [`Buffer`].
unsafe fn put(out: *mut Buffer, bytes: Vec<u8>) {
    if out.is_null() {
        return;
    }
    // SAFETY: non-null and writable by the caller's contract; the previous contents
    // are plain data (never an owned buffer the host expects us to free).
    unsafe { out.write(Buffer::from_vec(bytes)) };
}

/// `PluginTable::init` for plugin type `P`.
///
/// # Safety
/// `ctx_out` and `error_out` must be null or valid for one write each.
pub unsafe extern "C" fn init<P: Plugin>(
    ctx_out: *mut *mut c_void,
    error_out: *mut Buffer,
) -> Status {
    if ctx_out.is_null() {
        // SAFETY: forwarded caller contract on `error_out`.
        unsafe { put(error_out, b"init: ctx_out is null".to_vec()) };
        return STATUS_BAD_INPUT;
    }
    match catch_unwind(P::new) {
        Ok(Ok(plugin)) => {
            let ctx = Box::into_raw(Box::new(plugin)).cast::<c_void>();
            // SAFETY: `ctx_out` is non-null and writable by the caller's contract.
            unsafe { ctx_out.write(ctx) };
            STATUS_OK
        }
        Ok(Err(message)) => {
            // SAFETY: forwarded caller contract on `error_out`.
            unsafe { put(error_out, message.into_bytes()) };
            STATUS_ERROR
        }
        Err(payload) => {
            // SAFETY: forwarded caller contract on `error_out`.
            unsafe { put(error_out, panic_message(payload.as_ref()).into_bytes()) };
            STATUS_PANIC
        }
    }
}

/// `PluginTable::call` for plugin type `P`.
///
/// # Safety
/// `ctx` must be null or a context made by [`init::<P>`] and not yet dropped;
/// `input` must be null or valid for reads of `len` bytes; `out` must be null or
/// valid for one write.
pub unsafe extern "C" fn call<P: Plugin>(
    ctx: *mut c_void,
    input: *const u8,
    len: usize,
    out: *mut Buffer,
) -> Status {
    if out.is_null() {
        return STATUS_BAD_INPUT;
    }
    if ctx.is_null() || (input.is_null() && len > 0) {
        // SAFETY: `out` is non-null and writable by the caller's contract.
        unsafe { put(out, b"call: null context or input".to_vec()) };
        return STATUS_BAD_INPUT;
    }
    // SAFETY: `ctx` came from `init::<P>` (a live `Box<P>`) by the caller's contract;
    // `P: Sync`, so a shared reference may be used from any thread.
    let plugin: &P = unsafe { &*ctx.cast::<P>() };
    let bytes: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: `input` is non-null and valid for `len` bytes by the caller's contract.
        unsafe { std::slice::from_raw_parts(input, len) }
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<Vec<u8>, (Status, String)> {
        let request: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| (STATUS_BAD_INPUT, format!("the request is not JSON: {e}")))?;
        let reply = plugin.call(request).map_err(|m| (STATUS_ERROR, m))?;
        serde_json::to_vec(&reply).map_err(|e| {
            (
                STATUS_ERROR,
                format!("the reply cannot be written as JSON: {e}"),
            )
        })
    }));
    let (status, bytes) = match outcome {
        Ok(Ok(reply)) => (STATUS_OK, reply),
        Ok(Err((status, message))) => (status, message.into_bytes()),
        Err(payload) => (STATUS_PANIC, panic_message(payload.as_ref()).into_bytes()),
    };
    // SAFETY: `out` is non-null and writable by the caller's contract.
    unsafe { put(out, bytes) };
    status
}

/// `PluginTable::free_buffer`.
///
/// # Safety
/// `buffer` must have been returned by this library's `init` or `call` and not
/// released before.
pub unsafe extern "C" fn free_buffer(buffer: Buffer) {
    // SAFETY: forwarded caller contract: made by `Buffer::from_vec` in this library.
    unsafe { buffer.release() }
}

/// `PluginTable::drop` for plugin type `P`.
///
/// # Safety
/// `ctx` must be null or a context made by [`init::<P>`], dropped only once, with no
/// call in progress.
pub unsafe extern "C" fn drop<P: Plugin>(ctx: *mut c_void) {
    if ctx.is_null() {
        return;
    }
    // SAFETY: `ctx` is the `Box<P>` leaked by `init::<P>`, by the caller's contract
    // released exactly once. A panic in `P`'s destructor is caught so that it does
    // not unwind across the C boundary.
    let boxed = unsafe { Box::from_raw(ctx.cast::<P>()) };
    let _ = catch_unwind(AssertUnwindSafe(move || std::mem::drop(boxed)));
}
