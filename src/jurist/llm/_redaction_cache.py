"""A bounded cache of redacted strings, for the short strings every stored record repeats.

A schema-only validation record holds two dozen strings, most of them the same in every
record ("schema", "string", "object", a schema's field names, a layer's status), and the
analysis costs per character and per token: analysing only the strings not seen before cuts
a record's cost without changing what is found in it. Keys are a BLAKE2b digest of
the exact string, so the cache never holds the text it was given, only what the redactor made
of it; values are the redacted strings.
"""

import hashlib
import threading
from collections import OrderedDict

# Strings longer than this are rarely repeated word for word (an output, a message quoting
# it), and would make the cache's memory grow with them: they are always analysed.
MAX_CACHED_CHARS = 256


class RedactedCache:
    """Least recently used, at most `size` strings of at most `MAX_CACHED_CHARS` characters;
    `size` 0 caches nothing. Safe to share between threads."""

    def __init__(self, size: int) -> None:
        if size < 0:
            raise ValueError(f"cache_size must be 0 or more, got {size}")
        self.size = size
        self._entries: OrderedDict[bytes, str] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def cacheable(self, text: str) -> bool:
        return self.size > 0 and len(text) <= MAX_CACHED_CHARS

    def get(self, text: str) -> str | None:
        if not self.cacheable(text):
            return None
        key = _key(text)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, text: str, redacted: str) -> None:
        if not self.cacheable(text):
            return
        key = _key(text)
        with self._lock:
            self._entries[key] = redacted
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
