//! CRC-32C (Castagnoli, reflected polynomial `0x82F63B78`, initial value
//! and final xor `0xFFFFFFFF`): the checksum of whole table files that the
//! manifest records (`version::edit`, `file_checksum`), RocksDB's default
//! file checksum function.
//!
//! Not the CRC-32 (IEEE) of the block trailers: every block of a table ends
//! with the CRC-32 of its bytes (the footer too), and a CRC register that
//! has read a message followed by that message's own CRC has forgotten the
//! message. A CRC-32 of a whole table depends only on the lengths of its
//! blocks: any two tables of the same shape have the same one (test
//! `whole_file_crc32_is_blind_but_crc32c_is_not` in `table::tests`). A CRC
//! with another polynomial sees every byte.
//!
//! Table-driven, eight bytes per step ("slicing by 8"), in safe code.

const POLY: u32 = 0x82F6_3B78;

const fn make_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut j = 1;
        while j < 8 {
            let prev = t[j - 1][i];
            t[j][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            j += 1;
        }
        i += 1;
    }
    t
}

static TABLES: [[u32; 256]; 8] = make_tables();

/// The CRC-32C of the bytes whose CRC-32C is `crc`, followed by `data`
/// (`extend(0, data)` is the CRC-32C of `data`).
pub fn extend(crc: u32, data: &[u8]) -> u32 {
    let t = &TABLES;
    let mut c = !crc;
    let mut chunks = data.chunks_exact(8);
    for ch in &mut chunks {
        let lo = u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]) ^ c;
        let hi = u32::from_le_bytes([ch[4], ch[5], ch[6], ch[7]]);
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][(hi & 0xff) as usize]
            ^ t[2][((hi >> 8) & 0xff) as usize]
            ^ t[1][((hi >> 16) & 0xff) as usize]
            ^ t[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        c = t[0][((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// The CRC-32C of `data`.
pub fn hash(data: &[u8]) -> u32 {
    extend(0, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard check value, and the test vectors of RFC 3720 (iSCSI),
    /// appendix B.4.
    #[test]
    fn known_values() {
        assert_eq!(hash(b"123456789"), 0xe306_9283);
        assert_eq!(hash(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(hash(&[0xffu8; 32]), 0x62a8_ab43);
        let inc: Vec<u8> = (0..32).collect();
        assert_eq!(hash(&inc), 0x46dd_794e);
        let dec: Vec<u8> = (0..32).rev().collect();
        assert_eq!(hash(&dec), 0x113f_db5c);
        assert_eq!(hash(b""), 0);
    }

    #[test]
    fn extending_equals_hashing_the_whole() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = hash(&data);
        for cut in [0, 1, 7, 8, 9, 63, 500, 999, 1000] {
            assert_eq!(extend(hash(&data[..cut]), &data[cut..]), whole, "{cut}");
        }
    }
}
