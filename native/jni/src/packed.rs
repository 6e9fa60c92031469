//! Many byte strings across JNI in a few arrays: the keys and values of a
//! multi-get. Java's `dev.talus.PackedBytes` is the other half of this
//! layout; each side packs what the other unpacks.
//!
//! # Layout
//!
//! A list of `n` entries (each a byte string, or null for an absent value)
//! is a `byte[][] chunks` and an `int[] lengths` of `n` elements:
//!
//! ```text
//! lengths: [ 3, -1, 0, 5 ]          -1: null entry (values only)
//! chunks:  [ "abc" "" "hello" ]      one chunk here: entries end to end
//! ```
//!
//! Entries fill chunk 0 in order; an entry that does not fit in what is
//! left of the chunk limit starts the next chunk (the packer's rule), which
//! the unpacker sees as an entry that does not fit in what is left of the
//! current chunk's length. No entry may exceed the limit, so the two rules
//! agree. The limit is the largest Java array, or a smaller one that the
//! tests pass to exercise several chunks.
//!
//! Why: a multi-get of 64 keys made about a dozen JNI calls per key (get
//! each key's array, its length, its bytes, then a new array per value, its
//! bytes, its slot in the result), and each call is a thread-state
//! transition with a full memory fence. Profiles of `multiGetAsList` with
//! every block cached had those transitions (`jni_ExceptionCheck` alone)
//! among the top costs. Packed, a multi-get makes a fixed handful of calls
//! whatever its size; the JVM's own code (JIT-compiled, no transitions)
//! copies the keys in and the values out.

use std::ops::Range;

use jni::JNIEnv;
use jni::objects::{JByteArray, JIntArray, JObject, JObjectArray};
use jni::sys::{jint, jobjectArray};

use crate::bytes::{fill_from, new_array, try_grow};
use crate::error::{JniError, JniResult, require_non_null};

/// Reads a packed list of `what` (no null entries) into `flat`, end to
/// end, and the range of each entry in it into `ranges`. Lengths that do
/// not match the chunks (possible only through reflection on the private
/// natives) are an `IllegalArgumentException` naming `what`.
pub fn read_packed(
    env: &mut JNIEnv<'_>,
    chunks: &JObjectArray<'_>,
    lengths: &JIntArray<'_>,
    what: &'static str,
    flat: &mut Vec<u8>,
    ranges: &mut Vec<Range<usize>>,
) -> JniResult<()> {
    require_non_null(chunks, what)?;
    require_non_null(lengths, what)?;
    let n = env.get_array_length(lengths)?;
    let mut lens = Vec::new();
    try_grow(&mut lens, n as usize, what)?;
    lens.resize(n as usize, 0);
    env.get_int_array_region(lengths, 0, &mut lens)?;
    let mut chunk_ends = Vec::new();
    flat.clear();
    for c in 0..env.get_array_length(chunks)? {
        let a = JByteArray::from(env.get_object_array_element(chunks, c)?);
        require_non_null(&a, what)?;
        let len = env.get_array_length(&a)? as usize;
        let start = flat.len();
        try_grow(flat, len, what)?;
        flat.resize(start + len, 0);
        fill_from(env, &a, what, 0, &mut flat[start..])?;
        env.delete_local_ref(a)?;
        try_grow(&mut chunk_ends, 1, what)?;
        chunk_ends.push(flat.len());
    }
    ranges.clear();
    try_grow(ranges, lens.len(), what)?;
    let mismatch =
        || JniError::IllegalArgument(format!("the packed {what} do not match their lengths"));
    // The unpacker's rule (module docs): an entry that does not fit in
    // what is left of the current chunk starts the next one.
    let (mut c, mut pos) = (0usize, 0usize);
    for len in lens {
        let len = usize::try_from(len).map_err(|_| mismatch())?;
        if len > *chunk_ends.get(c).ok_or_else(mismatch)? - pos {
            pos = chunk_ends[c];
            c += 1;
            if len > *chunk_ends.get(c).ok_or_else(mismatch)? - pos {
                return Err(mismatch());
            }
        }
        ranges.push(pos..pos + len);
        pos += len;
    }
    Ok(())
}

/// Packs a list of optional byte strings for Java (module docs): push every
/// entry in order, then [`finish`](Self::finish).
pub struct Packer<'b> {
    limit: usize,
    bytes: &'b mut Vec<u8>,
    /// Where each chunk but the last ends in `bytes` (so the last starts
    /// where the final one of these ends).
    chunk_ends: Vec<usize>,
    lengths: Vec<jint>,
}

impl<'b> Packer<'b> {
    /// A packer of chunks of at most `limit` bytes (at least 1), using
    /// `bytes` (cleared) as its buffer.
    pub fn new(limit: jint, bytes: &'b mut Vec<u8>, entries: usize) -> JniResult<Packer<'b>> {
        let limit = usize::try_from(limit)
            .ok()
            .filter(|&l| l > 0)
            .ok_or_else(|| {
                JniError::IllegalArgument(format!("chunk limit {limit} is not positive"))
            })?;
        bytes.clear();
        let mut lengths = Vec::new();
        try_grow(&mut lengths, entries, "the value lengths")?;
        Ok(Packer {
            limit,
            bytes,
            chunk_ends: Vec::new(),
            lengths,
        })
    }

    /// Appends one entry (`None`: null).
    pub fn push(&mut self, entry: Option<&[u8]>) -> JniResult<()> {
        let Some(v) = entry else {
            try_grow(&mut self.lengths, 1, "the value lengths")?;
            self.lengths.push(-1);
            return Ok(());
        };
        if v.len() > self.limit {
            return Err(JniError::IllegalState(format!(
                "a value of {} bytes exceeds the chunk limit of {} bytes",
                v.len(),
                self.limit
            )));
        }
        let chunk_start = self.chunk_ends.last().copied().unwrap_or(0);
        if v.len() > self.limit - (self.bytes.len() - chunk_start) {
            try_grow(&mut self.chunk_ends, 1, "the values")?;
            self.chunk_ends.push(self.bytes.len());
        }
        try_grow(self.bytes, v.len(), "the values")?;
        self.bytes.extend_from_slice(v);
        try_grow(&mut self.lengths, 1, "the value lengths")?;
        // In range: `v.len()` is at most `limit`, itself a jint.
        self.lengths.push(v.len() as jint);
        Ok(())
    }

    /// Writes the lengths into `lengths` (which must have one element per
    /// entry) and returns the chunks, always at least one.
    pub fn finish(self, env: &mut JNIEnv<'_>, lengths: &JIntArray<'_>) -> JniResult<jobjectArray> {
        require_non_null(lengths, "valueLengths")?;
        if env.get_array_length(lengths)? as usize != self.lengths.len() {
            return Err(JniError::IllegalArgument(
                "valueLengths must have one element per key".into(),
            ));
        }
        env.set_int_array_region(lengths, 0, &self.lengths)?;
        // Chunk `i` is `bytes[bounds[i]..bounds[i + 1]]`.
        let mut bounds = vec![0];
        bounds.extend_from_slice(&self.chunk_ends);
        bounds.push(self.bytes.len());
        // At most one chunk per entry, so the count fits a jint.
        let out = env.new_object_array((bounds.len() - 1) as jint, "[B", JObject::null())?;
        for (i, w) in bounds.windows(2).enumerate() {
            let a = new_array(env, &self.bytes[w[0]..w[1]], "values")?;
            env.set_object_array_element(&out, i as jint, &a)?;
            env.delete_local_ref(a)?;
        }
        Ok(out.into_raw())
    }
}
