//! The table as a host sees it: identity strings, JSON in and out, errors and panics
//! turned into statuses with their messages, buffers handed over and released.

use cantus_plugin_abi::{
    ABI_VERSION, Buffer, Plugin, PluginTable, STATUS_BAD_INPUT, STATUS_ERROR, STATUS_OK,
    STATUS_PANIC, Status, c_str, table_str,
};
use serde_json::{Value, json};
use std::ffi::{CStr, c_void};

struct Upper;
impl Plugin for Upper {
    const NAME: &'static CStr = c"upper";
    const VERSION: &'static CStr = c_str!(env!("CARGO_PKG_VERSION"));
    const KIND: &'static CStr = c"backend";
    const DESCRIPTION: &'static CStr = c"upper-cases the first message";
    fn new() -> Result<Self, String> {
        Ok(Upper)
    }
    fn call(&self, request: Value) -> Result<Value, String> {
        match request["messages"][0]["content"].as_str() {
            Some("boom") => panic!("asked to explode"),
            Some(text) => Ok(json!({ "text": text.to_uppercase() })),
            None => Err("no message".into()),
        }
    }
}

struct Refuses;
impl Plugin for Refuses {
    const NAME: &'static CStr = c"refuses";
    const VERSION: &'static CStr = c"0";
    const KIND: &'static CStr = c"backend";
    const DESCRIPTION: &'static CStr = c"never starts";
    fn new() -> Result<Self, String> {
        Err("missing model file".into())
    }
    fn call(&self, _: Value) -> Result<Value, String> {
        Err("unreachable".into())
    }
}

struct PanicsOnLoad;
impl Plugin for PanicsOnLoad {
    const NAME: &'static CStr = c"panics";
    const VERSION: &'static CStr = c"0";
    const KIND: &'static CStr = c"backend";
    const DESCRIPTION: &'static CStr = c"panics in new";
    fn new() -> Result<Self, String> {
        panic!("cannot start today")
    }
    fn call(&self, _: Value) -> Result<Value, String> {
        Err("unreachable".into())
    }
}

/// Calls `table.init`, returning the context or the status and message.
fn init(table: &PluginTable) -> Result<*mut c_void, (Status, String)> {
    let mut ctx: *mut c_void = std::ptr::null_mut();
    let mut error = Buffer::EMPTY;
    // SAFETY: both out-pointers are valid locals.
    let status = unsafe { (table.init)(&mut ctx, &mut error) };
    // SAFETY: the buffer was filled by this table (or left empty).
    let message = String::from_utf8_lossy(&unsafe { error.to_vec() }).into_owned();
    // SAFETY: released once, by the table that made it.
    unsafe { (table.free_buffer)(error) };
    if status == STATUS_OK {
        Ok(ctx)
    } else {
        Err((status, message))
    }
}

/// Calls `table.call` with raw bytes.
fn call(table: &PluginTable, ctx: *mut c_void, input: &[u8]) -> (Status, String) {
    let mut out = Buffer::EMPTY;
    // SAFETY: `ctx` came from this table's init; input and out are valid locals.
    let status = unsafe { (table.call)(ctx, input.as_ptr(), input.len(), &mut out) };
    // SAFETY: filled by this table.
    let bytes = unsafe { out.to_vec() };
    // SAFETY: released once, by the table that made it.
    unsafe { (table.free_buffer)(out) };
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

#[test]
fn the_table_starts_with_the_abi_version_and_names_the_plugin() {
    let table = PluginTable::of::<Upper>();
    // The first four bytes of the table are the version, whatever follows.
    // SAFETY: `PluginTable` is `#[repr(C)]` with a `u32` first.
    let first = unsafe { *(&table as *const PluginTable).cast::<u32>() };
    assert_eq!(first, ABI_VERSION);
    // SAFETY: the strings are `'static` C literals.
    unsafe {
        assert_eq!(table_str(table.name), Some("upper"));
        assert_eq!(table_str(table.version), Some(env!("CARGO_PKG_VERSION")));
        assert_eq!(table_str(table.kind), Some("backend"));
        assert_eq!(
            table_str(table.description),
            Some("upper-cases the first message")
        );
        assert_eq!(table_str(std::ptr::null()), None);
    }
}

#[test]
fn a_request_goes_in_as_json_and_the_reply_comes_out_as_json() {
    let table = PluginTable::of::<Upper>();
    let ctx = init(&table).expect("Upper starts");
    let request = json!({"messages": [{"role": "user", "content": "c#5@1>4"}]});
    let (status, reply) = call(&table, ctx, request.to_string().as_bytes());
    assert_eq!(status, STATUS_OK);
    let reply: Value = serde_json::from_str(&reply).expect("reply is JSON");
    assert_eq!(reply, json!({"text": "C#5@1>4"}));
    // SAFETY: made by init, no call in progress, dropped once.
    unsafe { (table.drop)(ctx) };
}

#[test]
fn a_refusal_a_panic_and_bytes_that_are_not_json_become_statuses_with_messages() {
    let table = PluginTable::of::<Upper>();
    let ctx = init(&table).expect("Upper starts");
    let (status, message) = call(&table, ctx, br#"{"messages": []}"#);
    assert_eq!((status, message.as_str()), (STATUS_ERROR, "no message"));
    let (status, message) = call(&table, ctx, br#"{"messages": [{"content": "boom"}]}"#);
    assert_eq!(status, STATUS_PANIC);
    assert_eq!(message, "the plugin panicked: asked to explode");
    let (status, message) = call(&table, ctx, b"{not json");
    assert_eq!(status, STATUS_BAD_INPUT);
    assert!(message.starts_with("the request is not JSON"), "{message}");
    // After a panic the plugin still answers.
    let (status, reply) = call(&table, ctx, br#"{"messages": [{"content": "ok"}]}"#);
    assert_eq!((status, reply.as_str()), (STATUS_OK, r#"{"text":"OK"}"#));
    // SAFETY: made by init, no call in progress, dropped once.
    unsafe { (table.drop)(ctx) };
}

#[test]
fn null_pointers_are_refused_not_followed() {
    let table = PluginTable::of::<Upper>();
    let mut out = Buffer::EMPTY;
    // SAFETY: a null context and input are exactly what is being tested; `out` is valid.
    let status = unsafe { (table.call)(std::ptr::null_mut(), std::ptr::null(), 4, &mut out) };
    assert_eq!(status, STATUS_BAD_INPUT);
    // SAFETY: filled by this table; released once.
    unsafe {
        assert_eq!(out.to_vec(), b"call: null context or input");
        (table.free_buffer)(out);
    }
    // SAFETY: a null out-pointer is refused before anything is written.
    let status = unsafe {
        (table.call)(
            std::ptr::null_mut(),
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, STATUS_BAD_INPUT);
}

#[test]
fn a_plugin_that_cannot_start_says_why() {
    assert_eq!(
        init(&PluginTable::of::<Refuses>()).err(),
        Some((STATUS_ERROR, "missing model file".to_string()))
    );
    assert_eq!(
        init(&PluginTable::of::<PanicsOnLoad>()).err(),
        Some((
            STATUS_PANIC,
            "the plugin panicked: cannot start today".to_string()
        ))
    );
}
