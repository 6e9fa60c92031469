//! Bindings of the column-family methods of `dev.talus.TalusDB`: open with
//! families, list, create, drop, and the per-family forms of the data
//! calls. A family crosses as its id (`ColumnFamilyHandle.getID()`); a
//! dropped or unknown id is the engine's `InvalidArgument` naming it.

#![expect(
    unsafe_code,
    reason = "JNI entry points are found by their #[unsafe(no_mangle)] names"
)]

use jni::JNIEnv;
use jni::objects::{JByteArray, JByteBuffer, JClass, JIntArray, JLongArray, JObjectArray, JString};
use jni::sys::{jboolean, jbyteArray, jint, jlong, jobjectArray, jstring};

use talus::Db;
use talus::db::ColumnFamilyHandle;

use crate::bytes::{new_array, read_all};
use crate::db::{
    db, iterator_handle, iterator_read_options, options_text, read_options, unknown_property,
    write_options,
};
use crate::error::{JniError, JniResult, guard, require_non_null, string_arg};
use crate::handle::into_handle;
use crate::packed::{Packer, read_packed};

fn family(d: &Db, id: jint) -> JniResult<ColumnFamilyHandle> {
    let id = u32::try_from(id)
        .map_err(|_| JniError::IllegalArgument(format!("column family id {id} is negative")))?;
    Ok(d.column_family(id)?)
}

/// The database of `handle` and its live family `cf`: the preamble of the
/// per-family calls.
fn db_family<'l>(
    env: &JNIEnv<'l>,
    handle: jlong,
    cf: jint,
) -> JniResult<(&'l Db, ColumnFamilyHandle)> {
    let d = db(env, handle)?;
    Ok((d, family(d, cf)?))
}

/// [`db_family`] of a call on one key, with the key's bytes (a null key
/// fails first).
fn keyed_call<'l>(
    env: &mut JNIEnv<'l>,
    handle: jlong,
    cf: jint,
    key: &JByteArray<'_>,
) -> JniResult<(&'l Db, ColumnFamilyHandle, Vec<u8>)> {
    let k = bytes(env, key, "key")?;
    let (d, h) = db_family(env, handle, cf)?;
    Ok((d, h, k))
}

/// [`db_family`] of a property call, with the property's name (a null
/// name fails first).
fn property_call<'l>(
    env: &mut JNIEnv<'l>,
    handle: jlong,
    cf: jint,
    name: &JString<'_>,
) -> JniResult<(&'l Db, ColumnFamilyHandle, String)> {
    require_non_null(name, "property")?;
    let name = string_arg(env, name, "property name")?;
    let (d, h) = db_family(env, handle, cf)?;
    Ok((d, h, name))
}

/// The bytes of a non-null array argument.
fn bytes(env: &mut JNIEnv<'_>, a: &JByteArray<'_>, what: &'static str) -> JniResult<Vec<u8>> {
    require_non_null(a, what)?;
    let mut b = Vec::new();
    read_all(env, a, &mut b)?;
    Ok(b)
}

/// `static native long nativeOpenCf(String path, String dbOptions, long[] shared,
/// String[] names, String[] cfOptions, long[] mergeOperators, long[] caches,
/// int[] idsOut)`: `shared` as for `nativeOpen` (its merge operator slot
/// unused); each family's options text, merge operator handle and block
/// cache handle (0 = none: the family makes a cache of its own unless its
/// options say `no_block_cache`). Each family has its own table options;
/// families passing the same cache handle share that cache. Fills `idsOut`
/// with each family's id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeOpenCf<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    path: JString<'l>,
    options: JString<'l>,
    shared: JLongArray<'l>,
    names: JObjectArray<'l>,
    cf_options: JObjectArray<'l>,
    merge_ops: JLongArray<'l>,
    caches: JLongArray<'l>,
    ids_out: JIntArray<'l>,
) -> jlong {
    guard(&mut env, |env| {
        let args = OpenArgs {
            path,
            options,
            shared,
            names,
            cf_options,
            merge_ops,
            caches,
        };
        let (path, opts, families) = open_args(env, &args)?;
        let (db, hs) = Db::open_cf(opts, &path, families)?;
        finish_open(env, db, &hs, &ids_out)
    })
}

/// The arguments of an open with families (`nativeOpenCf` and the
/// read-only and secondary opens of `files_out`).
pub(crate) struct OpenArgs<'l> {
    pub(crate) path: JString<'l>,
    pub(crate) options: JString<'l>,
    pub(crate) shared: JLongArray<'l>,
    pub(crate) names: JObjectArray<'l>,
    pub(crate) cf_options: JObjectArray<'l>,
    pub(crate) merge_ops: JLongArray<'l>,
    /// Each family's block cache handle (0 = none named).
    pub(crate) caches: JLongArray<'l>,
}

/// Family lists of an open.
pub(crate) type Families = Vec<(String, talus::Options)>;

/// Decodes [`OpenArgs`]: the path, the database options, the families.
pub(crate) fn open_args(
    env: &mut JNIEnv<'_>,
    a: &OpenArgs<'_>,
) -> JniResult<(String, talus::Options, Families)> {
    let OpenArgs {
        path,
        options,
        shared,
        names,
        cf_options,
        merge_ops,
        caches,
    } = a;
    require_non_null(path, "path")?;
    require_non_null(options, "options")?;
    require_non_null(shared, "shared")?;
    require_non_null(names, "names")?;
    require_non_null(cf_options, "cfOptions")?;
    require_non_null(merge_ops, "mergeOperators")?;
    require_non_null(caches, "caches")?;
    let path = string_arg(env, path, "database path")?;
    // The merge operator slot is unused here: each family names its own.
    let (mut opts, _) = crate::db::database_options(env, options, shared)?;
    let n = env.get_array_length(names)?;
    if env.get_array_length(cf_options)? != n
        || env.get_array_length(merge_ops)? != n
        || env.get_array_length(caches)? != n
    {
        return Err(JniError::IllegalArgument(
            "column family arrays differ in length".into(),
        ));
    }
    let mut ops = vec![0 as jlong; n as usize];
    env.get_long_array_region(merge_ops, 0, &mut ops)?;
    let mut cache_handles = vec![0 as jlong; n as usize];
    env.get_long_array_region(caches, 0, &mut cache_handles)?;
    let mut families = Vec::with_capacity(n as usize);
    for i in 0..n {
        let name = JString::from(env.get_object_array_element(names, i)?);
        require_non_null(&name, "column family name")?;
        let name = string_arg(env, &name, "column family name")?;
        let o = JString::from(env.get_object_array_element(cf_options, i)?);
        require_non_null(&o, "column family options")?;
        let t = options_text(env, &o)?;
        let mut fo = talus::Options::default();
        crate::options::apply(&mut fo, &t)?;
        if ops[i as usize] != 0 {
            fo.merge_operator =
                Some(crate::merge_operator::merge_operator(ops[i as usize])?.clone());
        }
        if cache_handles[i as usize] != 0 {
            // The same Java cache object is the same native cache: the
            // families naming it share it.
            fo.table.block_cache =
                Some(crate::cache::cache(env, cache_handles[i as usize])?.clone());
        }
        if name == "default" {
            // The database's options carry the default family's.
            opts.table = fo.table.clone();
            opts.prefix_extractor = fo.prefix_extractor;
        }
        families.push((name, fo));
    }
    Ok((path, opts, families))
}

/// Fills `ids_out` with the families' ids and returns the database's handle.
pub(crate) fn finish_open(
    env: &mut JNIEnv<'_>,
    db: Db,
    hs: &[ColumnFamilyHandle],
    ids_out: &JIntArray<'_>,
) -> JniResult<jlong> {
    require_non_null(ids_out, "idsOut")?;
    if env.get_array_length(ids_out)? as usize != hs.len() {
        return Err(JniError::IllegalArgument(
            "column family arrays differ in length".into(),
        ));
    }
    let ids: Vec<jint> = hs.iter().map(|h| h.id() as jint).collect();
    env.set_int_array_region(ids_out, 0, &ids)?;
    Ok(into_handle(Box::new(db)))
}

/// `static native byte[][] nativeListColumnFamilies(String path, String options)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeListColumnFamilies<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    path: JString<'l>,
    options: JString<'l>,
) -> jobjectArray {
    guard(&mut env, |env| {
        require_non_null(&path, "path")?;
        require_non_null(&options, "options")?;
        let path = string_arg(env, &path, "database path")?;
        let text = options_text(env, &options)?;
        let mut opts = talus::Options::default();
        crate::options::apply(&mut opts, &text)?;
        let names = Db::list_column_families(&opts, &path)?;
        let out = env.new_object_array(names.len() as jint, "[B", jni::objects::JObject::null())?;
        for (i, n) in names.iter().enumerate() {
            let a = env.byte_array_from_slice(n.as_bytes())?;
            env.set_object_array_element(&out, i as jint, &a)?;
            env.delete_local_ref(a)?;
        }
        Ok(out.into_raw())
    })
}

/// `static native int nativeCreateColumnFamily(long h, String name, String options,
/// long mergeOperator, long cache)`: the new family's id. `cache` is the
/// block cache handle its table options name (0 = none: a cache of its own
/// unless `no_block_cache`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCreateColumnFamily<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    name: JString<'l>,
    options: JString<'l>,
    merge_op: jlong,
    cache: jlong,
) -> jint {
    guard(&mut env, |env| {
        require_non_null(&name, "name")?;
        require_non_null(&options, "options")?;
        let name = string_arg(env, &name, "column family name")?;
        let text = options_text(env, &options)?;
        let mut fo = talus::Options::default();
        crate::options::apply(&mut fo, &text)?;
        if merge_op != 0 {
            fo.merge_operator = Some(crate::merge_operator::merge_operator(merge_op)?.clone());
        }
        if cache != 0 {
            fo.table.block_cache = Some(crate::cache::cache(env, cache)?.clone());
        }
        let h = db(env, handle)?.create_column_family(&fo, &name)?;
        Ok(h.id() as jint)
    })
}

/// `static native void nativeDropColumnFamily(long h, int id)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeDropColumnFamily<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    id: jint,
) {
    guard(&mut env, |env| {
        let (d, h) = db_family(env, handle, id)?;
        Ok(d.drop_column_family(&h)?)
    })
}

/// `static native void nativeCfWrite(long h, int wflags, int cf, int op, byte[] key,
/// byte[] value)`: op 0 put, 1 delete, 2 merge, 3 single delete, 4 delete
/// range (`value` is the end key).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfWrite<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    wflags: jint,
    cf: jint,
    op: jint,
    key: JByteArray<'l>,
    value: JByteArray<'l>,
) {
    guard(&mut env, |env| {
        let (d, h, k) = keyed_call(env, handle, cf, &key)?;
        let wo = write_options(wflags);
        match op {
            0 => d.put_cf(&wo, &h, &k, &bytes(env, &value, "value")?)?,
            1 => d.delete_cf(&wo, &h, &k)?,
            2 => d.merge_cf(&wo, &h, &k, &bytes(env, &value, "value")?)?,
            3 => d.single_delete_cf(&wo, &h, &k)?,
            4 => d.delete_range_cf(&wo, &h, &k, &bytes(env, &value, "endKey")?)?,
            _ => return Err(JniError::IllegalArgument(format!("unknown write {op}"))),
        }
        Ok(())
    })
}

/// `static native byte[] nativeCfGet(long h, int rflags, long snapshot, int cf,
/// byte[] key)`: null when absent.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfGet<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    cf: jint,
    key: JByteArray<'l>,
) -> jbyteArray {
    guard(&mut env, |env| {
        let (d, h, k) = keyed_call(env, handle, cf, &key)?;
        match d.get_cf(&read_options(rflags, snapshot)?, &h, &k)? {
            Some(v) => Ok(new_array(env, &v, "value")?.into_raw()),
            None => Ok(std::ptr::null_mut()),
        }
    })
}

/// `static native int nativeCfKeyCheck(long h, int rflags, long snapshot, int cf,
/// byte[] key, boolean exact)`: with `exact`, 2 when the key exists, else 0
/// (`keyExists`); without, `keyMayExist`'s 0 absent, 1 may exist, 2 found.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfKeyCheck<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    cf: jint,
    key: JByteArray<'l>,
    exact: jboolean,
) -> jint {
    guard(&mut env, |env| {
        let (d, h, k) = keyed_call(env, handle, cf, &key)?;
        let ro = read_options(rflags, snapshot)?;
        if exact != 0 {
            return Ok(if d.key_exists_cf(&ro, &h, &k)? { 2 } else { 0 });
        }
        let mut v = Vec::new();
        Ok(match d.key_may_exist_cf(&ro, &h, &k, &mut v) {
            Ok(talus::db::KeyMayExist::Absent) => 0,
            Ok(talus::db::KeyMayExist::MayExist) | Err(_) => 1,
            Ok(talus::db::KeyMayExist::Found) => 2,
        })
    })
}

/// `static native byte[][] nativeCfMultiGet(long h, int rflags, long snapshot,
/// int[] cfs, byte[][] keyChunks, int[] keyLengths, int[] valueLengths, int
/// chunkLimit)`: at one snapshot, the keys and values packed as for
/// `nativeMultiGet` ([`crate::packed`]); -1 in `valueLengths` for an absent key.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfMultiGet<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    cfs: JIntArray<'l>,
    key_chunks: JObjectArray<'l>,
    key_lengths: JIntArray<'l>,
    value_lengths: JIntArray<'l>,
    chunk_limit: jint,
) -> jobjectArray {
    guard(&mut env, |env| {
        require_non_null(&cfs, "columnFamilyHandles")?;
        let (mut flat, mut ranges) = (Vec::new(), Vec::new());
        read_packed(
            env,
            &key_chunks,
            &key_lengths,
            "keys",
            &mut flat,
            &mut ranges,
        )?;
        let n = ranges.len();
        if env.get_array_length(&cfs)? as usize != n {
            return Err(JniError::IllegalArgument(
                "one column family per key is needed".into(),
            ));
        }
        let mut ids = vec![0 as jint; n];
        env.get_int_array_region(&cfs, 0, &mut ids)?;
        let d = db(env, handle)?;
        let mut handles = Vec::with_capacity(n);
        for &id in &ids {
            handles.push(family(d, id)?);
        }
        let pairs: Vec<(&ColumnFamilyHandle, &[u8])> = handles
            .iter()
            .zip(ranges.iter().map(|r| &flat[r.clone()]))
            .collect();
        let vals = d.multi_get_cf(&read_options(rflags, snapshot)?, &pairs)?;
        let mut bytes = Vec::new();
        let mut packer = Packer::new(chunk_limit, &mut bytes, n)?;
        for v in &vals {
            packer.push(v.as_deref())?;
        }
        packer.finish(env, &value_lengths)
    })
}

/// `static native long nativeCfNewIterator(long h, int rflags, long snapshot, int cf,
/// byte[] lower, byte[] upper, long readaheadSize, ByteBuffer buffer)`: as `nativeNewIterator`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfNewIterator<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    rflags: jint,
    snapshot: jlong,
    cf: jint,
    lower: JByteArray<'l>,
    upper: JByteArray<'l>,
    readahead: jlong,
    buffer: JByteBuffer<'l>,
) -> jlong {
    guard(&mut env, |env| {
        let ro = iterator_read_options(env, rflags, snapshot, &lower, &upper, readahead)?;
        let (d, h) = db_family(env, handle, cf)?;
        let it = d.iter_cf(&ro, &h)?;
        iterator_handle(env, it, &buffer)
    })
}

/// `static native void nativeCfFlush(long h, int cf, boolean wait, boolean allowWriteStall)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfFlush<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    cf: jint,
    wait: jboolean,
    allow_write_stall: jboolean,
) {
    guard(&mut env, |env| {
        let (d, h) = db_family(env, handle, cf)?;
        let fo = talus::db::FlushOptions {
            wait: wait != 0,
            allow_write_stall: allow_write_stall != 0,
        };
        Ok(d.flush_cf(&fo, &h)?)
    })
}

/// `static native void nativeCfCompactRange(long h, int cf, byte[] begin, byte[] end, int flags,
/// int targetLevel, int bottommost, int maxSubcompactions)` (the options as
/// `db::compact_range_options` decodes them).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfCompactRange<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    cf: jint,
    begin: JByteArray<'l>,
    end: JByteArray<'l>,
    flags: jint,
    target_level: jint,
    bottommost: jint,
    max_subcompactions: jint,
) {
    guard(&mut env, |env| {
        let cro =
            crate::db::compact_range_options(flags, target_level, bottommost, max_subcompactions)?;
        let b = (!begin.is_null())
            .then(|| bytes(env, &begin, "begin"))
            .transpose()?;
        let e = (!end.is_null())
            .then(|| bytes(env, &end, "end"))
            .transpose()?;
        let (d, h) = db_family(env, handle, cf)?;
        Ok(d.compact_range_cf_opt(&h, &cro, b.as_deref(), e.as_deref())?)
    })
}

/// `static native String nativeCfGetProperty(long h, int cf, String name)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfGetProperty<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    cf: jint,
    name: JString<'l>,
) -> jstring {
    guard(&mut env, |env| {
        let (d, h, name) = property_call(env, handle, cf, &name)?;
        let v = d
            .property_cf(&h, &name)
            .ok_or_else(|| unknown_property(&name))?;
        Ok(env.new_string(v)?.into_raw())
    })
}

/// `static native long nativeCfGetLongProperty(long h, int cf, String name)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_talus_TalusDB_nativeCfGetLongProperty<'l>(
    mut env: JNIEnv<'l>,
    _c: JClass<'l>,
    handle: jlong,
    cf: jint,
    name: JString<'l>,
) -> jlong {
    guard(&mut env, |env| {
        let (d, h, name) = property_call(env, handle, cf, &name)?;
        match d.int_property_cf(&h, &name) {
            Some(v) => Ok(v as jlong),
            None if d.property_cf(&h, &name).is_some() => Err(JniError::Engine(
                talus::Error::NotFound(format!("property {name} is not numeric")),
            )),
            None => Err(unknown_property(&name)),
        }
    })
}
