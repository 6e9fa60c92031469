//! Telling another engine's database from a Talus one, before an open or a
//! destroy touches anything in the directory.
//!
//! RocksDB (and LevelDB, whose layout RocksDB kept) name their files as
//! Talus does — `CURRENT`, `MANIFEST-000005`, `000009.sst`, `000008.log`,
//! `IDENTITY`, `LOCK`, `LOG` — so names alone cannot tell them apart. Two
//! things can:
//!
//! 1. The manifest's log format. Both engines frame the manifest in 32 KiB
//!    blocks of fragments with a 7-byte header (checksum u32, length u16,
//!    type u8), but Talus's checksum is CRC-32 (IEEE) over type, length and
//!    payload (`wal` module docs), and RocksDB's and LevelDB's is a masked
//!    CRC-32C over type and payload. The first fragment of the manifest
//!    `CURRENT` names (or, without `CURRENT`, of the newest manifest) is
//!    checked against both: a chance match of the other engine's checksum
//!    is one in 2^32. A fragment that matches neither is left to recovery,
//!    which reports the damage as `Corruption`.
//! 2. RocksDB's options file, `OPTIONS-{number}`, an INI text whose header
//!    names RocksDB. Talus writes no such file.
//!
//! A manifest in Talus's format settles it: the directory is a Talus
//! database, whatever else lies in it. Otherwise a manifest in the other
//! format, or a RocksDB options file, makes the directory foreign. Only
//! reads are done here: no file is created, renamed or locked.

use std::path::Path;

use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::version::{FileType, filename, parse_file_name};
use crate::wal::HEADER_LEN;

/// The CRC-32C (Castagnoli) of `data`, bitwise: run once per open on one
/// fragment, so the table-less form is enough.
fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0x82F6_3B78 & mask);
        }
    }
    !crc
}

/// RocksDB's and LevelDB's stored form of a CRC-32C: rotated right by 15
/// bits plus a constant, so that a checksum of data holding checksums does
/// not degenerate.
fn masked(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// What the first fragment of a manifest says about its writer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ManifestFormat {
    /// Its checksum is Talus's.
    Talus,
    /// Its checksum is RocksDB's (and LevelDB's).
    RocksDbLog,
    /// Neither (empty, damaged, or something else).
    Unknown,
}

/// Classifies the manifest at `path` by its first fragment (module docs).
pub(crate) fn manifest_format(fs: &dyn FileSystem, path: &Path) -> Result<ManifestFormat> {
    let file = fs.new_random_access(path)?;
    let size = file.size()?;
    if size < HEADER_LEN as u64 {
        return Ok(ManifestFormat::Unknown);
    }
    let mut header = [0u8; HEADER_LEN];
    file.read_exact_at(0, &mut header)?;
    let stored = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
    let len = usize::from(u16::from_le_bytes([header[4], header[5]]));
    let ty = header[6];
    if (HEADER_LEN + len) as u64 > size || len > crate::wal::BLOCK_SIZE - HEADER_LEN {
        return Ok(ManifestFormat::Unknown);
    }
    let mut framed = vec![0u8; 1 + len];
    framed[0] = ty;
    file.read_exact_at(HEADER_LEN as u64, &mut framed[1..])?;
    if crate::wal::fragment_crc(ty, &framed[1..]) == stored {
        return Ok(ManifestFormat::Talus);
    }
    if masked(crc32c(&framed)) == stored {
        return Ok(ManifestFormat::RocksDbLog);
    }
    Ok(ManifestFormat::Unknown)
}

/// `OPTIONS-{digits}`, or such a name with the temporary suffix RocksDB
/// writes it under first.
fn is_options_file_name(name: &str) -> bool {
    let stem = name.strip_suffix(filename::TEMP_SUFFIX).unwrap_or(name);
    stem.strip_prefix("OPTIONS-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether the file at `path` reads as a RocksDB options file.
fn is_rocksdb_options_file(fs: &dyn FileSystem, path: &Path) -> bool {
    let Ok(file) = fs.new_random_access(path) else {
        return false;
    };
    let Ok(size) = file.size() else { return false };
    let mut head = vec![0u8; size.min(4096) as usize];
    if file.read_exact_at(0, &mut head).is_err() {
        return false;
    }
    let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
    has(b"RocksDB option file") || has(b"rocksdb_version=")
}

/// The manifest `CURRENT` names in `dir`, or, without `CURRENT`, the
/// newest `MANIFEST-*` among `names`.
fn manifest_to_check(fs: &dyn FileSystem, dir: &Path, names: &[String]) -> Option<String> {
    if names.iter().any(|n| n == filename::CURRENT) {
        let file = fs.new_random_access(&dir.join(filename::CURRENT)).ok()?;
        let size = file.size().ok()?.min(256);
        let mut buf = vec![0u8; size as usize];
        file.read_exact_at(0, &mut buf).ok()?;
        let name = std::str::from_utf8(&buf).ok()?.trim_end_matches('\n');
        return matches!(parse_file_name(name), Some(FileType::Manifest(_)))
            .then(|| name.to_string())
            .filter(|n| names.contains(n));
    }
    names
        .iter()
        .filter_map(|n| match parse_file_name(n) {
            Some(FileType::Manifest(number)) => Some((number, n)),
            _ => None,
        })
        .max()
        .map(|(_, n)| n.clone())
}

/// Fails with `InvalidArgument` naming what was found when `dir` holds
/// another engine's database (module docs); reads only. A missing or
/// unreadable directory passes (the caller reports it).
pub(crate) fn check_not_foreign(fs: &dyn FileSystem, dir: &Path) -> Result<()> {
    let Ok(mut names) = fs.list_dir(dir) else {
        return Ok(());
    };
    names.sort();
    let manifest = manifest_to_check(fs, dir, &names);
    let format = match &manifest {
        // An unreadable manifest is for recovery to report.
        Some(m) => manifest_format(fs, &dir.join(m)).unwrap_or(ManifestFormat::Unknown),
        None => ManifestFormat::Unknown,
    };
    if format == ManifestFormat::Talus {
        return Ok(());
    }
    let options: Vec<&String> = names
        .iter()
        .filter(|n| is_options_file_name(n) && is_rocksdb_options_file(fs, &dir.join(n)))
        .collect();
    if options.is_empty() && format != ManifestFormat::RocksDbLog {
        return Ok(());
    }
    let engine = if options.is_empty() {
        "RocksDB or LevelDB"
    } else {
        "RocksDB"
    };
    let mut found: Vec<String> = options.iter().map(|n| n.to_string()).collect();
    if let Some(m) = manifest.filter(|_| format == ManifestFormat::RocksDbLog) {
        found.push(format!("{m} in their log format"));
    }
    Err(Error::InvalidArgument(format!(
        "{}: not a Talus database: it looks like {engine} (found {}); Talus cannot read \
         another engine's files, and left the directory as it was",
        dir.display(),
        found.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_and_mask_match_their_definitions() {
        // The standard check value of CRC-32C.
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c(b""), 0);
        assert_eq!(masked(0), 0xa282_ead8);
        assert_eq!(masked(1), (1u32 << 17).wrapping_add(0xa282_ead8));
    }

    #[test]
    fn options_file_names() {
        for (name, want) in [
            ("OPTIONS-000007", true),
            ("OPTIONS-7", true),
            ("OPTIONS-000007.dbtmp", true),
            ("OPTIONS-", false),
            ("OPTIONS-12a", false),
            ("OPTIONS", false),
            ("options-000007", false),
        ] {
            assert_eq!(is_options_file_name(name), want, "{name}");
        }
    }
}
