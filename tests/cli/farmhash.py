"""farmhash.py - FarmHash Fingerprint64 (farmhashna::Hash64) in plain
Python, written from its published definition for the test references
(TensorFlow's StringToHashBucketFast is Fingerprint64 modulo the bucket
count). Checked on import against published values: BigQuery's
FARM_FINGERPRINT documentation and the go-farm port's test table."""
import struct

M = (1 << 64) - 1
K0, K1, K2 = 0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f


def _u64(b, i):
    return struct.unpack_from("<Q", b, i)[0]


def _u32(b, i):
    return struct.unpack_from("<I", b, i)[0]


def _rot(v, s):
    return v if s == 0 else ((v >> s) | (v << (64 - s))) & M


def _mix(u, v, mul):
    a = ((u ^ v) * mul) & M
    a ^= a >> 47
    b = ((v ^ a) * mul) & M
    b ^= b >> 47
    return (b * mul) & M


def _weak(b, i, x, y):
    w, xx, yy, z = _u64(b, i), _u64(b, i + 8), _u64(b, i + 16), _u64(b, i + 24)
    x = (x + w) & M
    y = _rot((y + x + z) & M, 21)
    c = x
    x = (x + xx + yy) & M
    y = (y + _rot(x, 44)) & M
    return (x + z) & M, (y + c) & M


def fingerprint64(b):
    n = len(b)
    if n <= 16:
        if n >= 8:
            mul = (K2 + n * 2) & M
            a = (_u64(b, 0) + K2) & M
            bb = _u64(b, n - 8)
            c = (_rot(bb, 37) * mul + a) & M
            d = ((_rot(a, 25) + bb) * mul) & M
            return _mix(c, d, mul)
        if n >= 4:
            mul = (K2 + n * 2) & M
            return _mix((n + (_u32(b, 0) << 3)) & M, _u32(b, n - 4), mul)
        if n > 0:
            y = b[0] + (b[n >> 1] << 8)
            z = n + (b[n - 1] << 2)
            h = ((y * K2) ^ (z * K0)) & M
            return ((h ^ (h >> 47)) * K2) & M
        return K2
    if n <= 32:
        mul = (K2 + n * 2) & M
        a = (_u64(b, 0) * K1) & M
        bb = _u64(b, 8)
        c = (_u64(b, n - 8) * mul) & M
        d = (_u64(b, n - 16) * K2) & M
        return _mix((_rot((a + bb) & M, 43) + _rot(c, 30) + d) & M, (a + _rot((bb + K2) & M, 18) + c) & M, mul)
    if n <= 64:
        mul = (K2 + n * 2) & M
        a = (_u64(b, 0) * K2) & M
        bb = _u64(b, 8)
        c = (_u64(b, n - 8) * mul) & M
        d = (_u64(b, n - 16) * K2) & M
        y = (_rot((a + bb) & M, 43) + _rot(c, 30) + d) & M
        z = _mix(y, (a + _rot((bb + K2) & M, 18) + c) & M, mul)
        e = (_u64(b, 16) * mul) & M
        f = _u64(b, 24)
        g = ((y + _u64(b, n - 32)) * mul) & M
        h = ((z + _u64(b, n - 24)) * mul) & M
        return _mix((_rot((e + f) & M, 43) + _rot(g, 30) + h) & M, (e + _rot((f + a) & M, 18) + g) & M, mul)
    x = 81
    y = (81 * K1 + 113) & M
    z = ((lambda t: (t ^ (t >> 47)))((y * K2 + 113) & M) * K2) & M
    v, w = (0, 0), (0, 0)
    x = (x * K2 + _u64(b, 0)) & M
    s, end = 0, ((n - 1) // 64) * 64
    while True:
        x = (_rot((x + y + v[0] + _u64(b, s + 8)) & M, 37) * K1) & M
        y = (_rot((y + v[1] + _u64(b, s + 48)) & M, 42) * K1) & M
        x ^= w[1]
        y = (y + v[0] + _u64(b, s + 40)) & M
        z = (_rot((z + w[0]) & M, 33) * K1) & M
        v = _weak(b, s, (v[1] * K1) & M, (x + w[0]) & M)
        w = _weak(b, s + 32, (z + w[1]) & M, (y + _u64(b, s + 16)) & M)
        z, x = x, z
        s += 64
        if s == end:
            break
    mul = (K1 + ((z & 0xff) << 1)) & M
    s = n - 64
    w = ((w[0] + ((n - 1) & 63)) & M, w[1])
    v = ((v[0] + w[0]) & M, v[1])
    w = ((w[0] + v[0]) & M, w[1])
    x = (_rot((x + y + v[0] + _u64(b, s + 8)) & M, 37) * mul) & M
    y = (_rot((y + v[1] + _u64(b, s + 48)) & M, 42) * mul) & M
    x ^= (w[1] * 9) & M
    y = (y + v[0] * 9 + _u64(b, s + 40)) & M
    z = (_rot((z + w[0]) & M, 33) * mul) & M
    v = _weak(b, s, (v[1] * mul) & M, (x + w[0]) & M)
    w = _weak(b, s + 32, (z + w[1]) & M, (y + _u64(b, s + 16)) & M)
    z, x = x, z
    return _mix((_mix(v[0], w[0], mul) + ((y ^ (y >> 47)) * K0) + z) & M, (_mix(v[1], w[1], mul) + x) & M, mul)


def hash_bucket(text, buckets):
    """TensorFlow's StringToHashBucketFast of one string."""
    return fingerprint64(text if isinstance(text, bytes) else text.encode()) % buckets


assert fingerprint64(b"1footrue") == (-1541654101129638711) & M
assert fingerprint64(b"alphabet") == (-2427165924636348523) & M
assert fingerprint64(b"C is as portable as Stonehedge!!") == 0xb944f8a16261e414
assert fingerprint64(b"Discard medicine more than two years old.") == 0xe8f89ab6df9bdd25
assert fingerprint64(b"For every action there is an equal and opposite government program.") == 0x55182f8859eca4ce
assert [hash_bucket(t, 3) for t in ("Hello", "TensorFlow", "2.x")] == [0, 2, 2]
