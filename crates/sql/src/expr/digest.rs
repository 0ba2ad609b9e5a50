//! Hashes and checksums behind MD5(), SHA1(), SHA2() and CRC32().
//!
//! MD5, SHA-1 and SHA-2 come from the RustCrypto crates; CRC32 (IEEE 802.3, as zlib and
//! MariaDB compute it) from crc32fast, which uses the CPU's carry-less multiply.

use sha2::Digest;

pub fn sha1(data: &[u8]) -> Vec<u8> {
    sha1::Sha1::digest(data).to_vec()
}

/// SHA2(data, bits): bits 0 means 256; other values than 224/256/384/512 give NULL.
pub fn sha2(data: &[u8], bits: i64) -> Option<Vec<u8>> {
    Some(match bits {
        224 => sha2::Sha224::digest(data).to_vec(),
        0 | 256 => sha2::Sha256::digest(data).to_vec(),
        384 => sha2::Sha384::digest(data).to_vec(),
        512 => sha2::Sha512::digest(data).to_vec(),
        _ => return None,
    })
}

pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

pub fn md5(data: &[u8]) -> Vec<u8> {
    <md5::Md5 as md5::Digest>::digest(data).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|c| format!("{c:02x}")).collect()
    }

    #[test]
    fn known_digests() {
        // MariaDB: SELECT MD5('ab'), SHA1('ab'), CRC32('ab'), MD5('').
        assert_eq!(hex(&md5(b"ab")), "187ef4436122d1cc2f40dc2b92f0eba0");
        assert_eq!(hex(&md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(
            hex(&sha1(b"ab")),
            "da23614e02469a0d7c7bd1bdab5c9c474b1904dc"
        );
        assert_eq!(
            hex(&sha2(b"ab", 256).expect("256 bits")),
            "fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603"
        );
        assert_eq!(crc32(b"ab"), 2659403885);
    }
}
