//! [`DbId`]: the identity of a database.
//!
//! A database gets a random 128-bit id when it is created (or, for a
//! database written before ids existed, at its first open by a Talus that
//! has them) and keeps it for life. The id binds the files of a database to
//! it:
//!
//! - the manifest records it (`version::edit`, field `db_id`); that record
//!   is the authority;
//! - `IDENTITY` holds a copy as text, for people and tools (RocksDB keeps
//!   the same file): the id in UUID form followed by `\n`;
//! - every table written carries it in its properties (`table::properties`,
//!   `db_id`), so a table copied in from another database is refused;
//! - every write-ahead log carries it in its start record (`wal`), so a
//!   database never replays or deletes a log another database wrote into a
//!   shared `wal_dir`.
//!
//! A copy of a database directory keeps the id, as in RocksDB: the copy and
//! the original are the same database as far as their files go.

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// Length of a [`DbId`] in bytes.
pub const DB_ID_LEN: usize = 16;

/// The 128-bit identity of a database. See the module docs.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DbId(pub [u8; DB_ID_LEN]);

impl DbId {
    /// A new random id (RFC 4122 version 4 layout).
    ///
    /// The randomness is the process's hash keys (`RandomState`, seeded
    /// from the OS's random source) mixed with the time, the process id and
    /// a counter: unpredictability is not needed, only that two databases
    /// never draw the same id.
    pub fn generate() -> DbId {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let mut out = [0u8; DB_ID_LEN];
        for (i, half) in out.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(n);
            h.write_u128(nanos);
            h.write_u32(std::process::id());
            h.write_usize(i);
            half.copy_from_slice(&h.finish().to_le_bytes());
        }
        out[6] = (out[6] & 0x0f) | 0x40;
        out[8] = (out[8] & 0x3f) | 0x80;
        DbId(out)
    }

    /// The id from its 16 bytes; `None` for any other length.
    pub fn from_bytes(b: &[u8]) -> Option<DbId> {
        b.try_into().ok().map(DbId)
    }

    /// Parses the UUID form (`8-4-4-4-12` hex digits, either case), as
    /// [`fmt::Display`] writes it and `IDENTITY` holds it (surrounding
    /// whitespace ignored).
    pub fn parse(s: &str) -> Option<DbId> {
        let s = s.trim();
        let groups: Vec<&str> = s.split('-').collect();
        if groups.iter().map(|g| g.len()).collect::<Vec<_>>() != [8, 4, 4, 4, 12] {
            return None;
        }
        let hex: String = groups.concat();
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let mut out = [0u8; DB_ID_LEN];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(DbId(out))
    }

    /// The contents of an `IDENTITY` file holding this id.
    pub fn identity_file_contents(&self) -> String {
        format!("{self}\n")
    }
}

impl fmt::Display for DbId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for DbId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DbId({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_round_trip_through_text() {
        let ids: Vec<DbId> = (0..1000).map(|_| DbId::generate()).collect();
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        for id in &ids[..10] {
            let text = id.identity_file_contents();
            assert_eq!(text.len(), 37);
            assert_eq!(DbId::parse(&text), Some(*id));
            assert_eq!(DbId::parse(&text.to_uppercase()), Some(*id));
            assert_eq!(DbId::from_bytes(&id.0), Some(*id));
            assert_eq!(id.0[6] >> 4, 4, "version 4");
        }
    }

    #[test]
    fn golden_text_and_bad_text() {
        let id = DbId(*b"\x01\x23\x45\x67\x89\xab\xcd\xef\x00\x11\x22\x33\x44\x55\x66\x77");
        assert_eq!(id.to_string(), "01234567-89ab-cdef-0011-223344556677");
        for bad in [
            "",
            "01234567-89ab-cdef-0011-22334455667",
            "01234567-89ab-cdef-0011-2233445566778",
            "0123456789ab-cdef-0011-223344556677-",
            "0123456g-89ab-cdef-0011-223344556677",
            "01234567+89ab-cdef-0011-223344556677",
            "+1234567-89ab-cdef-0011-223344556677",
        ] {
            assert_eq!(DbId::parse(bad), None, "{bad:?}");
        }
        assert_eq!(DbId::from_bytes(&[0; 15]), None);
    }
}
