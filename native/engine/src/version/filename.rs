//! Names of the files in a database directory.
//!
//! Part of the on-disk layout: a database written by one version of Talus
//! must be readable by the next, so these spellings never change.
//!
//! | file                      | name                         |
//! |---------------------------|------------------------------|
//! | write-ahead log           | `{number:06}.log`            |
//! | table                     | `{number:06}.sst`            |
//! | manifest                  | `MANIFEST-{number:06}`       |
//! | pointer to the manifest   | `CURRENT`                    |
//! | process lock              | `LOCK`                       |
//! | database identity         | `IDENTITY`                   |
//! | info log                  | `LOG`                        |
//! | rotated info log          | `LOG.old.{unix_micros}`      |
//! | temporary (atomic writes) | `{anything}.dbtmp`           |
//!
//! `{number:06}` pads to six digits but wider numbers are written in full;
//! the parser accepts any run of ASCII digits that fits a `u64`.

/// Name of the file that names the live manifest.
pub const CURRENT: &str = "CURRENT";
/// Name of the lock file.
pub const LOCK: &str = "LOCK";
/// Name of the file holding the database's unique id.
pub const IDENTITY: &str = "IDENTITY";
/// Name of the info log.
pub const INFO_LOG: &str = "LOG";
/// Suffix of temporary files (see [`crate::fs::write_file_atomic`]).
pub const TEMP_SUFFIX: &str = ".dbtmp";

const LOG_SUFFIX: &str = ".log";
const TABLE_SUFFIX: &str = ".sst";
const MANIFEST_PREFIX: &str = "MANIFEST-";
const OLD_INFO_LOG_PREFIX: &str = "LOG.old.";

/// What a file in the database directory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileType {
    /// A write-ahead log with its file number.
    Log(u64),
    /// A table file with its file number.
    Table(u64),
    /// A manifest with its file number.
    Manifest(u64),
    /// `CURRENT`.
    Current,
    /// `LOCK`.
    Lock,
    /// `IDENTITY`.
    Identity,
    /// `LOG`.
    InfoLog,
    /// `LOG.old.*`.
    OldInfoLog,
    /// `*.dbtmp`: left behind by an interrupted atomic write; safe to delete.
    Temp,
}

/// `{number:06}.log`.
pub fn log_file_name(number: u64) -> String {
    format!("{number:06}{LOG_SUFFIX}")
}

/// `{number:06}.sst`.
pub fn table_file_name(number: u64) -> String {
    format!("{number:06}{TABLE_SUFFIX}")
}

/// `MANIFEST-{number:06}`.
pub fn manifest_file_name(number: u64) -> String {
    format!("{MANIFEST_PREFIX}{number:06}")
}

/// `LOG.old.{unix_micros}`.
pub fn old_info_log_file_name(unix_micros: u64) -> String {
    format!("{OLD_INFO_LOG_PREFIX}{unix_micros}")
}

/// `{number:06}.dbtmp`, for a temporary file not tied to a fixed name.
pub fn temp_file_name(number: u64) -> String {
    format!("{number:06}{TEMP_SUFFIX}")
}

/// Parses a run of ASCII digits into a `u64`; rejects signs, spaces and overflow.
fn parse_number(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Classifies a directory entry by name; `None` for files that are not ours.
pub fn parse_file_name(name: &str) -> Option<FileType> {
    match name {
        CURRENT => return Some(FileType::Current),
        LOCK => return Some(FileType::Lock),
        IDENTITY => return Some(FileType::Identity),
        INFO_LOG => return Some(FileType::InfoLog),
        _ => {}
    }
    if name.len() > TEMP_SUFFIX.len() && name.ends_with(TEMP_SUFFIX) {
        return Some(FileType::Temp);
    }
    if let Some(rest) = name.strip_prefix(OLD_INFO_LOG_PREFIX) {
        return parse_number(rest).map(|_| FileType::OldInfoLog);
    }
    if let Some(rest) = name.strip_prefix(MANIFEST_PREFIX) {
        return parse_number(rest).map(FileType::Manifest);
    }
    if let Some(stem) = name.strip_suffix(LOG_SUFFIX) {
        return parse_number(stem).map(FileType::Log);
    }
    if let Some(stem) = name.strip_suffix(TABLE_SUFFIX) {
        return parse_number(stem).map(FileType::Table);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(log_file_name(7), "000007.log");
        assert_eq!(table_file_name(123), "000123.sst");
        assert_eq!(manifest_file_name(1), "MANIFEST-000001");
        assert_eq!(table_file_name(12_345_678), "12345678.sst");
        assert_eq!(
            old_info_log_file_name(1_700_000_000_000_000),
            "LOG.old.1700000000000000"
        );
        for n in [0, 1, 999_999, 1_000_000, u64::MAX] {
            assert_eq!(parse_file_name(&log_file_name(n)), Some(FileType::Log(n)));
            assert_eq!(
                parse_file_name(&table_file_name(n)),
                Some(FileType::Table(n))
            );
            assert_eq!(
                parse_file_name(&manifest_file_name(n)),
                Some(FileType::Manifest(n))
            );
            assert_eq!(parse_file_name(&temp_file_name(n)), Some(FileType::Temp));
        }
    }

    #[test]
    fn classifies_fixed_names_and_rejects_strangers() {
        let table = [
            ("CURRENT", Some(FileType::Current)),
            ("LOCK", Some(FileType::Lock)),
            ("IDENTITY", Some(FileType::Identity)),
            ("LOG", Some(FileType::InfoLog)),
            ("LOG.old.1234", Some(FileType::OldInfoLog)),
            ("CURRENT.dbtmp", Some(FileType::Temp)),
            (".dbtmp", None),
            ("LOG.old.", None),
            ("LOG.old.x1", None),
            ("MANIFEST-", None),
            ("MANIFEST-12a", None),
            ("MANIFEST--1", None),
            (".log", None),
            ("+12.log", None),
            (" 12.sst", None),
            ("12.sst.bak", None),
            ("99999999999999999999.sst", None), // overflows u64
            ("000001.blob", None),
            ("current", None),
        ];
        for (name, want) in table {
            assert_eq!(parse_file_name(name), want, "{name}");
        }
    }
}
