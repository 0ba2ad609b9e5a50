#!/usr/bin/env python3
"""Writes the seed corpus of the handshake fuzz target (corpus/handshake/).

Names say what the replay test (tests/handshake_fuzz.rs) expects: accept-* must
authenticate, reject-* must not; the fuzzer adds files with hash names, which only
have to run without panicking. The layout is described in harness.rs."""
import hashlib, os, struct

PASSWORD = b"correct horse"
SCRAMBLE = b"fuzz-scramble-0123ab"
# protocol::handshake::capability::SERVER_DEFAULT, and CLIENT_SSL
CAPS = 0x017FF75F
SSL = 1 << 11
NATIVE, SHA2, SHA2_FULL, NATIVE_EMPTY, SHA2_EMPTY, DECOY_NATIVE, DECOY_SHA2 = range(7)


def sha1(b): return hashlib.sha1(b).digest()
def sha256(b): return hashlib.sha256(b).digest()
def xor(a, b): return bytes(x ^ y for x, y in zip(a, b))


def native(pw):
    s1 = sha1(pw)
    return xor(s1, sha1(SCRAMBLE + sha1(s1)))


def sha2(pw):
    s1 = sha256(pw)
    return xor(s1, sha256(sha256(s1) + SCRAMBLE))


def response(auth, plugin, caps=CAPS, user=b"root", attrs=True):
    if not attrs:
        caps &= ~(1 << 20)  # CONNECT_ATTRS
    p = struct.pack("<IIB", caps, 16 << 20, 45) + b"\0" * 23 + user + b"\0"
    p += bytes([len(auth)]) + auth  # lenenc below 251
    p += b"test\0"  # CONNECT_WITH_DB
    p += plugin + b"\0"
    if attrs:
        kv = b"\x0c_client_name\x08libmysql"
        p += bytes([len(kv)]) + kv
    return p


def ssl_request():
    return struct.pack("<IIB", CAPS | SSL, 16 << 20, 45) + b"\0" * 23


def seed(selector, *packets):
    out = bytes([selector])
    for p in packets:
        out += struct.pack("<H", len(p)) + p
    return out


def rsa_plain(pw):
    pw = pw + b"\0"
    return bytes(c ^ SCRAMBLE[i % 20] for i, c in enumerate(pw))


N, S = b"mysql_native_password", b"caching_sha2_password"
seeds = {
    "accept-native": seed(NATIVE, response(native(PASSWORD), N)),
    "accept-native-after-switch": seed(NATIVE, response(sha2(PASSWORD), S), native(PASSWORD)),
    "accept-sha2-fast": seed(SHA2, response(sha2(PASSWORD), S)),
    "accept-sha2-full-tls": seed(SHA2_FULL, ssl_request(), response(sha2(PASSWORD), S), PASSWORD + b"\0"),
    "accept-sha2-tls-cleartext-first": seed(SHA2, ssl_request(), response(PASSWORD + b"\0", S)),
    "accept-sha2-full-rsa": seed(SHA2_FULL, response(sha2(PASSWORD), S), b"\x02", rsa_plain(PASSWORD)),
    "accept-empty-native": seed(NATIVE_EMPTY, response(b"", N)),
    "accept-empty-sha2": seed(SHA2_EMPTY, response(b"", S, attrs=False)),
    "reject-native-wrong": seed(NATIVE, response(native(b"wrong"), N)),
    "reject-sha2-full-cleartext-plain": seed(SHA2_FULL, response(sha2(PASSWORD), S), PASSWORD + b"\0"),
    "reject-sha2-full-rsa-wrong": seed(SHA2_FULL, response(sha2(PASSWORD), S), b"\x02", rsa_plain(b"x")),
    "reject-decoy-native": seed(DECOY_NATIVE, response(native(PASSWORD), N)),
    "reject-decoy-sha2": seed(DECOY_SHA2, ssl_request(), response(sha2(PASSWORD), S), PASSWORD + b"\0"),
    "reject-empty-account-with-password": seed(NATIVE_EMPTY, response(native(PASSWORD), N)),
    "reject-two-ssl-requests": seed(NATIVE, ssl_request(), ssl_request(), response(native(PASSWORD), N)),
    "reject-sha2-cleartext-first-plain": seed(SHA2, response(PASSWORD + b"\0", S), PASSWORD + b"\0"),
    "truncated-response": seed(NATIVE, response(native(PASSWORD), N)[:40]),
}
directory = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "handshake")
os.makedirs(directory, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)
print(f"{len(seeds)} seeds in {directory}")
