# work_py: a python3 workload for bench/symbol_bytes. Imports extension modules (each a dso of
# its own) and spends ~1 s in the interpreter and in a few of them.
import bz2, ctypes, datetime, decimal, hashlib, json, lzma, math, random, sqlite3, ssl, time, zlib

start = time.monotonic()
data = bytes(random.Random(1).getrandbits(8) for _ in range(200000))
while time.monotonic() - start < 1:
    zlib.compress(data)
    bz2.compress(data[:50000])
    hashlib.sha256(data).hexdigest()
    json.dumps([decimal.Decimal(i) / 7 for i in range(2000)], default=str)
    sqlite3.connect(":memory:").execute("select 1").fetchall()
