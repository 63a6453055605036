"""SQLite's heap in a benchmark: its high-water mark above the level
before a step, through ctypes from the same libsqlite3 the sqlite3 module
uses (sqlite3_status64).  bench/skip.py and bench/hbase_scale.py."""
import ctypes
import ctypes.util


class Heap:
    """SQLite's heap high-water mark, reset before a query."""
    SQLITE_STATUS_MEMORY_USED = 0

    def __init__(self):
        self.lib = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
        self.lib.sqlite3_status64.argtypes = [
            ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
            ctypes.POINTER(ctypes.c_int64), ctypes.c_int]

    def read(self, reset):
        cur, high = ctypes.c_int64(), ctypes.c_int64()
        self.lib.sqlite3_status64(self.SQLITE_STATUS_MEMORY_USED,
                                  ctypes.byref(cur), ctypes.byref(high), reset)
        return cur.value, high.value

    def peak_during(self, fn):
        """Bytes above the level before fn() that SQLite's heap reached."""
        before, _ = self.read(1)
        result = fn()
        _, high = self.read(0)
        return high - before, result
