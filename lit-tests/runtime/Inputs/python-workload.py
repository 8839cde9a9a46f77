"""preload-python.test's workload for Debian's python3.11: 20,000 bytes
objects of 1000-1006 bytes (above pymalloc's 512-byte limit, so each is a
malloc), a JSON round trip through the C accelerator, and 300 malloc calls
of 12,345 bytes into libc through ctypes (libffi)."""
import ctypes, json
N = 20000
objs = [bytes(1000 + i % 7) for i in range(N)]
doc = json.dumps([{"id": i, "name": "item%d" % i, "tags": ["a", "b"]} for i in range(2000)])
back = json.loads(doc)
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
for i in range(300):
    libc.free(libc.malloc(12345))
print("objects", N + 300, "json items", len(back))
