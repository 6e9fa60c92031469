//! The one wrapper every JNI entry point runs inside, and the Java exceptions it throws.
//!
//! [`guard`] runs the body of an entry point, catches a Rust panic before it can
//! unwind into the JVM (undefined behaviour), and turns every [`JniError`] into a
//! pending Java exception, returning a dummy value ([`ErrorValue`]) that Java never
//! sees because the exception is thrown when the native method returns:
//!
//! | `JniError`              | Java exception                                              |
//! |-------------------------|-------------------------------------------------------------|
//! | `Engine(talus::Error)`  | `dev.talus.TalusException` with its `Status` (code, sub-code, state) |
//! | `NullArgument(param)`   | `NullPointerException("<param> must not be null")`          |
//! | `IllegalArgument(msg)`  | `IllegalArgumentException(msg)`                             |
//! | `IndexOutOfBounds(msg)` | `IndexOutOfBoundsException(msg)`                            |
//! | `IllegalState(msg)`     | `IllegalStateException(msg)`                                |
//! | `Jni(JavaException)`    | the Java exception already pending (e.g. `OutOfMemoryError`) |
//! | `Jni(other)`            | `IllegalStateException("talus JNI call failed: ...")`       |
//! | a panic                 | `IllegalStateException("talus native panic: <message>")`    |
//!
//! If a Java exception is already pending when the body fails, it is left as is:
//! it is the more precise report, and JNI forbids throwing a second one.
//!
//! The exception classes and the `TalusException(byte, byte, String)` constructor
//! are looked up once, by `init` from `JNI_OnLoad`, while the class loader of
//! `dev.talus.NativeLibrary` is current; later lookups by name from an arbitrary
//! thread could see the wrong class loader.
//!
//! Thread safety: everything here is callable from any JVM thread at once; the
//! cache is written once before the first entry point can run.

use std::any::Any;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

use jni::JNIEnv;
use jni::objects::{GlobalRef, JMethodID, JObject, JString, JThrowable, JValue};
use jni::sys::{jboolean, jbyte, jchar, jdouble, jfloat, jint, jlong, jobject, jshort, jvalue};

/// Result of the body of an entry point.
pub type JniResult<T> = Result<T, JniError>;

/// Why a native call failed; [`guard`] turns it into a Java exception (see the module table).
#[derive(Debug)]
pub enum JniError {
    /// An engine error, thrown as `dev.talus.TalusException`.
    Engine(talus::Error),
    /// A required reference argument was `null`; the name of the Java parameter.
    NullArgument(&'static str),
    /// An argument out of its domain (e.g. a negative size).
    IllegalArgument(String),
    /// An offset/length pair outside an array or buffer.
    IndexOutOfBounds(String),
    /// The object cannot do this now (e.g. a null handle, an iterator not positioned).
    IllegalState(String),
    /// Native memory for a copy of the arguments could not be allocated; thrown as
    /// `java.lang.OutOfMemoryError` (an allocation failure would otherwise abort the process).
    OutOfMemory(String),
    /// A JNI call failed; `JavaException` means a Java exception is pending.
    Jni(jni::errors::Error),
    /// A Rust panic caught by [`guard`], with its message.
    Panic(String),
}

impl fmt::Display for JniError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JniError::Engine(e) => write!(f, "{e}"),
            JniError::NullArgument(param) => write!(f, "{param} must not be null"),
            JniError::IllegalArgument(m)
            | JniError::IndexOutOfBounds(m)
            | JniError::IllegalState(m)
            | JniError::OutOfMemory(m) => f.write_str(m),
            JniError::Jni(e) => write!(f, "talus JNI call failed: {e}"),
            JniError::Panic(m) => write!(f, "talus native panic: {m}"),
        }
    }
}

impl From<talus::Error> for JniError {
    fn from(e: talus::Error) -> Self {
        JniError::Engine(e)
    }
}

impl From<jni::errors::Error> for JniError {
    fn from(e: jni::errors::Error) -> Self {
        JniError::Jni(e)
    }
}

/// The value an entry point returns when it throws: zero, `false`, `null` or `()`.
/// Java never reads it, because the pending exception is thrown first.
pub trait ErrorValue {
    /// The dummy return value.
    fn error_value() -> Self;
}

macro_rules! zero_error_value {
    ($($t:ty),*) => {
        $(impl ErrorValue for $t {
            fn error_value() -> Self {
                0 as $t
            }
        })*
    };
}
zero_error_value!(jboolean, jbyte, jchar, jshort, jint, jlong, jfloat, jdouble);

impl ErrorValue for () {
    fn error_value() -> Self {}
}

/// Covers every raw reference return type: `jstring`, `jbyteArray`, `jobjectArray`, ...
impl ErrorValue for jobject {
    fn error_value() -> Self {
        std::ptr::null_mut()
    }
}

/// Runs the body of a JNI entry point: never unwinds into the JVM, and turns an
/// error or a panic into a pending Java exception (see the module docs).
///
/// Every `extern "system"` function of this crate is exactly
/// `guard(&mut env, |env| { ... })`.
pub fn guard<'local, R, F>(env: &mut JNIEnv<'local>, body: F) -> R
where
    R: ErrorValue,
    F: FnOnce(&mut JNIEnv<'local>) -> JniResult<R>,
{
    match catch_panic(|| body(env)) {
        Ok(value) => value,
        Err(err) => {
            throw(env, err);
            R::error_value()
        }
    }
}

/// Runs `body`, turning a panic into [`JniError::Panic`].
pub(crate) fn catch_panic<R>(body: impl FnOnce() -> JniResult<R>) -> JniResult<R> {
    // AssertUnwindSafe: after a panic the closure's captures are not used again;
    // the caller only throws a Java exception. Engine objects reached through a
    // handle keep their own invariants across a panic (locks poison, background
    // errors latch), as they must for any panic in a thread of the engine.
    panic::catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(JniError::Panic(panic_message(payload.as_ref()))))
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic payload is not a string".to_owned()
    }
}

/// Fails with [`JniError::NullArgument`] when `obj` is Java `null`.
///
/// Works for every reference wrapper (`JByteArray`, `JString`, ...) through deref.
pub fn require_non_null(obj: &JObject<'_>, param: &'static str) -> JniResult<()> {
    if obj.is_null() {
        Err(JniError::NullArgument(param))
    } else {
        Ok(())
    }
}

/// The text of Java string `s` (not null: check with [`require_non_null`]);
/// `what` names it in the error.
///
/// JNI hands strings over in modified UTF-8, where every UTF-16 unit is
/// encoded alone. A Java string can hold an unpaired surrogate, which no
/// Rust string (and no file name in UTF-8) can; jni's own conversion then
/// replaced it with U+FFFD, so `"x\uD800y"` and `"x\uDBFFy"` named the
/// same directory. Such a string is refused with `InvalidArgument`, as
/// `java.nio.file.Paths.get` refuses it (`TalusDBMisuseTest`
/// `regressionPathWithUnpairedSurrogateIsRefused`).
pub fn string_arg(env: &mut JNIEnv<'_>, s: &JString<'_>, what: &str) -> JniResult<String> {
    let java = env.get_string(s)?;
    decode_modified_utf8(java.to_bytes(), what)
}

/// [`string_arg`] on the bytes JNI returned (modified UTF-8).
pub fn decode_modified_utf8(bytes: &[u8], what: &str) -> JniResult<String> {
    match cesu8::from_java_cesu8(bytes) {
        Ok(text) => Ok(text.into_owned()),
        Err(_) => Err(JniError::Engine(talus::Error::InvalidArgument(format!(
            "{what} is not valid Unicode (it holds an unpaired UTF-16 surrogate): {}",
            String::from_utf8_lossy(bytes)
        )))),
    }
}

/// Checks a Java `(offset, len)` pair against a length of `array_len` and returns
/// it as the `usize` range `offset..offset + len`.
///
/// `what` names the array in the `IndexOutOfBoundsException` message.
pub fn check_bounds(
    what: &str,
    array_len: jint,
    offset: jint,
    len: jint,
) -> JniResult<std::ops::Range<usize>> {
    // i64 arithmetic: offset + len cannot overflow.
    let (a, o, l) = (i64::from(array_len), i64::from(offset), i64::from(len));
    if o < 0 || l < 0 || o + l > a {
        return Err(JniError::IndexOutOfBounds(format!(
            "{what}: offset {offset} and length {len} out of bounds for length {array_len}"
        )));
    }
    // Non-negative and at most array_len (a jint), so both fit in usize.
    let start = o as usize;
    Ok(start..start + l as usize)
}

/// The `Status` bytes JNI hands to `TalusException(byte code, byte subCode, String state)`.
/// The engine's `Code` and `SubCode` already use RocksJava's byte values (all ≤ 0x7F).
pub fn status_of(e: &talus::Error) -> (jbyte, jbyte, String) {
    (
        e.code() as u8 as jbyte,
        e.subcode() as u8 as jbyte,
        e.state(),
    )
}

/// The Java classes [`guard`] throws. The discriminant indexes [`Cache::classes`].
#[derive(Clone, Copy, Debug)]
enum Thrown {
    TalusException = 0,
    NullPointer = 1,
    IllegalArgument = 2,
    IndexOutOfBounds = 3,
    IllegalState = 4,
    OutOfMemory = 5,
}

impl Thrown {
    const ALL: [Thrown; 6] = [
        Thrown::TalusException,
        Thrown::NullPointer,
        Thrown::IllegalArgument,
        Thrown::IndexOutOfBounds,
        Thrown::IllegalState,
        Thrown::OutOfMemory,
    ];

    fn class_name(self) -> &'static str {
        match self {
            Thrown::TalusException => "dev/talus/TalusException",
            Thrown::NullPointer => "java/lang/NullPointerException",
            Thrown::IllegalArgument => "java/lang/IllegalArgumentException",
            Thrown::IndexOutOfBounds => "java/lang/IndexOutOfBoundsException",
            Thrown::IllegalState => "java/lang/IllegalStateException",
            Thrown::OutOfMemory => "java/lang/OutOfMemoryError",
        }
    }
}

/// The JNI signature of `TalusException(byte code, byte subCode, String state)`.
const TALUS_EXCEPTION_CTOR: &str = "(BBLjava/lang/String;)V";

struct Cache {
    /// Global references, indexed by `Thrown as usize`.
    classes: Vec<GlobalRef>,
    talus_exception_ctor: JMethodID,
}

static CACHE: OnceLock<Cache> = OnceLock::new();

/// Looks up and caches the exception classes and constructor. Called by `JNI_OnLoad`;
/// a second call does nothing.
pub(crate) fn init(env: &mut JNIEnv<'_>) -> jni::errors::Result<()> {
    if CACHE.get().is_some() {
        return Ok(());
    }
    let mut classes = Vec::with_capacity(Thrown::ALL.len());
    for thrown in Thrown::ALL {
        let class = env.find_class(thrown.class_name())?;
        classes.push(env.new_global_ref(class)?);
    }
    let talus_exception_ctor = env.get_method_id(
        &classes[Thrown::TalusException as usize],
        "<init>",
        TALUS_EXCEPTION_CTOR,
    )?;
    // A racing loader in another class loader has its own copy of this library,
    // so losing this race cannot happen; ignoring the result is still correct.
    let _ = CACHE.set(Cache {
        classes,
        talus_exception_ctor,
    });
    Ok(())
}

/// Makes `err` the pending Java exception, unless one is pending already.
fn throw(env: &mut JNIEnv<'_>, err: JniError) {
    if env.exception_check().unwrap_or(true) {
        return;
    }
    let thrown = match &err {
        JniError::Engine(e) => {
            // Failing to build it leaves an OutOfMemoryError or similar pending;
            // fall back to an IllegalStateException only if nothing is pending.
            if throw_talus_exception(env, e).is_ok() || env.exception_check().unwrap_or(true) {
                return;
            }
            Thrown::IllegalState
        }
        JniError::NullArgument(_) => Thrown::NullPointer,
        JniError::IllegalArgument(_) => Thrown::IllegalArgument,
        JniError::IndexOutOfBounds(_) => Thrown::IndexOutOfBounds,
        JniError::IllegalState(_) | JniError::Jni(_) | JniError::Panic(_) => Thrown::IllegalState,
        JniError::OutOfMemory(_) => Thrown::OutOfMemory,
    };
    let message = err.to_string();
    // If even this fails the JVM has an exception (OutOfMemoryError) pending.
    let _ = match CACHE.get() {
        Some(cache) => env.throw_new(&cache.classes[thrown as usize], message),
        None => env.throw_new(thrown.class_name(), message),
    };
}

fn throw_talus_exception(env: &mut JNIEnv<'_>, e: &talus::Error) -> jni::errors::Result<()> {
    let (code, sub_code, state) = status_of(e);
    let state = env.new_string(state)?;
    let exception = match CACHE.get() {
        Some(cache) => {
            let args = [
                jvalue { b: code },
                jvalue { b: sub_code },
                jvalue { l: state.as_raw() },
            ];
            // SAFETY: `talus_exception_ctor` was looked up on this very class with
            // signature TALUS_EXCEPTION_CTOR = (byte, byte, String) -> void, and
            // `args` holds exactly a byte, a byte and a live String reference.
            #[expect(unsafe_code, reason = "constructor id cached at load time")]
            unsafe {
                env.new_object_unchecked(
                    &cache.classes[Thrown::TalusException as usize],
                    cache.talus_exception_ctor,
                    &args,
                )?
            }
        }
        None => env.new_object(
            Thrown::TalusException.class_name(),
            TALUS_EXCEPTION_CTOR,
            &[
                JValue::Byte(code),
                JValue::Byte(sub_code),
                JValue::Object(&state),
            ],
        )?,
    };
    env.throw(JThrowable::from(exception))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_errors_with_their_message() {
        let r: JniResult<()> = catch_panic(|| panic!("boom {}", 7));
        assert!(matches!(r, Err(JniError::Panic(m)) if m == "boom 7"));
        let r: JniResult<()> = catch_panic(|| panic!("static"));
        assert!(matches!(r, Err(JniError::Panic(m)) if m == "static"));
        let r: JniResult<()> = catch_panic(|| std::panic::panic_any(42_u32));
        assert!(matches!(r, Err(JniError::Panic(m)) if m.contains("not a string")));
    }

    #[test]
    fn values_and_errors_pass_through_unchanged() {
        assert_eq!(catch_panic(|| Ok(5_i64)).unwrap(), 5);
        let r: JniResult<()> = catch_panic(|| Err(JniError::NullArgument("key")));
        assert_eq!(r.unwrap_err().to_string(), "key must not be null");
    }

    #[test]
    fn engine_errors_cross_as_rocksjava_status_bytes() {
        let e = talus::Error::io(
            "append /db/000001.log",
            &std::io::Error::from_raw_os_error(28),
        );
        let (code, sub, state) = status_of(&e);
        assert_eq!((code, sub), (5, 4)); // IOError(NoSpace)
        assert!(state.starts_with("append /db/000001.log: "));
        let (code, sub, state) = status_of(&talus::Error::Busy("LOCK held".into()));
        assert_eq!((code, sub, state.as_str()), (0xB, 0, "LOCK held"));
    }

    #[test]
    fn bounds_are_checked_without_overflow() {
        assert_eq!(check_bounds("key", 10, 2, 8).unwrap(), 2..10);
        assert_eq!(check_bounds("key", 0, 0, 0).unwrap(), 0..0);
        for (off, len) in [(-1, 1), (0, -1), (3, 8), (i32::MAX, i32::MAX)] {
            let err = check_bounds("key", 10, off, len).unwrap_err();
            assert!(matches!(err, JniError::IndexOutOfBounds(ref m) if m.starts_with("key: ")));
        }
    }

    #[test]
    fn regression_unpaired_surrogates_are_refused_not_replaced() {
        // "x\uD800y" and "x\uDBFFy" in modified UTF-8: both became "x\u{FFFD}y".
        for lone in [
            &[0xED, 0xA0, 0x80][..],
            &[0xED, 0xAF, 0xBF],
            &[0xED, 0xB0, 0x80],
        ] {
            let bytes = [&b"x"[..], lone, b"y"].concat();
            match decode_modified_utf8(&bytes, "path") {
                Err(JniError::Engine(e @ talus::Error::InvalidArgument(_))) => {
                    assert!(e.to_string().contains("path is not valid Unicode"), "{e}");
                }
                other => panic!("{bytes:x?}: expected InvalidArgument, got {other:?}"),
            }
        }
        // A lone high surrogate at the end, and one followed by a non-surrogate.
        for bytes in [&b"x\xED\xA0\x80"[..], b"\xED\xA0\x80\xE4\xB8\x80"] {
            assert!(decode_modified_utf8(bytes, "path").is_err(), "{bytes:x?}");
        }
        // A surrogate pair (U+1F600) and NUL (C0 80) are fine.
        let pair = [b'a', 0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80, b'b'];
        assert_eq!(decode_modified_utf8(&pair, "path").unwrap(), "a\u{1F600}b");
        assert_eq!(
            decode_modified_utf8(&[b'a', 0xC0, 0x80], "path").unwrap(),
            "a\0"
        );
        assert_eq!(
            decode_modified_utf8("d\u{e9}j\u{e0}".as_bytes(), "path").unwrap(),
            "d\u{e9}j\u{e0}"
        );
    }

    #[test]
    fn error_values_are_zero_or_null() {
        assert_eq!(jlong::error_value(), 0);
        assert_eq!(jboolean::error_value(), 0);
        assert!(jobject::error_value().is_null());
    }
}
