"""Content-addressed parts of snapshots: stored once, and kept small between snapshots (numpy is imported only
when a patch is made or applied).

A snapshot's content is the parts of :meth:`OfferColumns.to_parts <gpuhub.store.columns.OfferColumns.to_parts>`
(one NPY file per column, one JSON document). Each part is a *blob* stored once under the SHA-256 of its bytes
(:func:`blob_hash`): an unchanged column is shared by every snapshot that has it. A changed column is usually the
previous one with a few values replaced (1 % of prices changed in an hour), so the previous blob of the same part is
rewritten as a *patch* against the new one (a reverse delta: the newest blob, the one searches read, is always whole;
an older one is its patch applied to its base, which may itself be a patch of a newer blob). A patch is kept only
when it is at most half the blob's size.

Two patch forms (:func:`make_patch`), the smaller one is taken:

- ``words``: for blobs of equal length (a column of the same offers): the 8-byte words that differ, as their
  indices (uint32) and values;
- ``splice``: what lies between the common prefix and the common suffix (a table that grew or shrank in one place).

Patches only ever point at a blob written after them, so chains have no cycle and end at a whole blob. A blob is
kept while a kept snapshot's content names it or a kept blob is patched against it (:meth:`BlobTables.collect`).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["PATCH_AT_MOST", "BlobTables", "apply_patch", "blob_hash", "make_patch", "resolve"]

_MAGIC = b"GPDELTA1"
_WORDS, _SPLICE = 1, 2
_HEAD = struct.Struct("<8sBQ")  # magic, form, length of the blob the patch rebuilds (bytes)
_SPLICE_HEAD = struct.Struct("<QQ")  # common prefix, common suffix (bytes)
_WORDS_HEAD = struct.Struct("<Q")  # number of differing 8-byte words
PATCH_AT_MOST = 0.5
"""A patch is stored instead of the whole blob only when it is at most this fraction of the blob's size."""


def blob_hash(data: bytes) -> str:
    """SHA-256 (hex) of one part's bytes: the blob's name."""
    return hashlib.sha256(data).hexdigest()


def _words(data: bytes, length: int) -> npt.NDArray[np.uint64]:
    """``data`` as little-endian uint64 words, zero-padded to ``length`` bytes rounded up to 8."""
    import numpy as np

    padded = data + bytes(-len(data) % 8 + (length - len(data)))
    return np.frombuffer(padded, dtype="<u8")


def _common_prefix(a: bytes, b: bytes) -> int:
    import numpy as np

    n = min(len(a), len(b))
    if not n:
        return 0
    differ = np.frombuffer(a, dtype=np.uint8, count=n) != np.frombuffer(b, dtype=np.uint8, count=n)
    first = int(differ.argmax())
    return n if not differ[first] else first


def make_patch(old: bytes, new: bytes) -> bytes | None:
    """``old`` as a patch against ``new`` (so :func:`apply_patch(new, patch) <apply_patch>` gives ``old`` back), or
    None when no patch is at most :data:`PATCH_AT_MOST` of ``len(old)``."""
    import numpy as np

    best: bytes | None = None
    limit = int(len(old) * PATCH_AT_MOST)
    if len(old) == len(new) and len(old) < 8 * 2**32:
        a, b = _words(old, len(old)), _words(new, len(new))
        where = np.flatnonzero(a != b)
        if len(where) * 12 + _HEAD.size + _WORDS_HEAD.size <= limit:
            best = (_HEAD.pack(_MAGIC, _WORDS, len(old)) + _WORDS_HEAD.pack(len(where))
                    + where.astype("<u4").tobytes() + a[where].tobytes())
    prefix = _common_prefix(old, new)
    suffix = _common_prefix(old[prefix:][::-1], new[prefix:][::-1])
    middle = old[prefix:len(old) - suffix]
    size = _HEAD.size + _SPLICE_HEAD.size + len(middle)
    if size <= limit and (best is None or size < len(best)):
        best = _HEAD.pack(_MAGIC, _SPLICE, len(old)) + _SPLICE_HEAD.pack(prefix, suffix) + middle
    return best


def apply_patch(base: bytes, patch: bytes) -> bytes:
    """The blob that ``patch`` (from :func:`make_patch`) rebuilds from ``base``.

    Raises:
        ValueError: not a patch of this format, or not one of ``base`` (a damaged store).
    """
    import numpy as np

    if len(patch) < _HEAD.size:
        raise ValueError("a stored patch is cut short")
    magic, form, length = _HEAD.unpack_from(patch)
    if magic != _MAGIC:
        raise ValueError("a stored patch has no patch header")
    body = memoryview(patch)[_HEAD.size:]
    if form == _SPLICE:
        prefix, suffix = _SPLICE_HEAD.unpack_from(body)
        middle = bytes(body[_SPLICE_HEAD.size:])
        if prefix + suffix > len(base) or prefix + len(middle) + suffix != length:
            raise ValueError("a stored splice patch does not fit its base")
        return base[:prefix] + middle + base[len(base) - suffix:]
    if form == _WORDS:
        if len(base) != length:
            raise ValueError("a stored word patch does not fit its base")
        (count,) = _WORDS_HEAD.unpack_from(body)
        start = _WORDS_HEAD.size
        if len(body) != start + 12 * count:
            raise ValueError("a stored word patch is cut short")
        where = np.frombuffer(body, dtype="<u4", count=count, offset=start)
        values = np.frombuffer(body, dtype="<u8", count=count, offset=start + 4 * count)
        words = _words(base, length).copy()
        if count and int(where.max()) >= len(words):
            raise ValueError("a stored word patch points outside its base")
        words[where] = values
        whole: bytes = words.tobytes()[:length]
        return whole
    raise ValueError(f"a stored patch of unknown form {form}")


def resolve(name: str, fetch: Callable[[str], tuple[str | None, bytes] | None]) -> bytes | None:
    """The bytes of blob ``name``: its stored data, or its patch applied to its base, recursively.

    Args:
        name: the blob's hash.
        fetch: blob hash -> (base hash or None, stored data), or None when the blob is missing.

    Returns:
        The blob's bytes, or None when it or a blob of its chain is missing.

    Raises:
        ValueError: a patch does not apply (a damaged store), or the chain loops.
    """
    patches: list[bytes] = []
    seen: set[str] = set()
    current: str | None = name
    while current is not None:
        if current in seen:
            raise ValueError("a stored patch chain loops")
        seen.add(current)
        found = fetch(current)
        if found is None:
            return None
        current, data = found
        patches.append(data)
    data = patches.pop()
    while patches:
        data = apply_patch(data, patches.pop())
    return data


class BlobTables:
    """The blob and part tables of one backend, and what the backends do with them in the same SQL (SQLite and
    PostgreSQL both take ``INSERT ... ON CONFLICT DO NOTHING``).

    Args:
        blob: the blob table: ``hash`` (primary key), ``base`` (the blob a patch applies to, NULL for whole
            bytes), ``size`` (the part's length, bytes), ``data`` (whole bytes or a patch).
        part: the part table: ``content`` (a content hash), ``name`` (``price.npy``, ``tables.json``...), ``blob``.
        mark: the driver's placeholder (``?`` or ``%s``).

    Every method takes ``db``, a connection or cursor inside the caller's transaction (``execute`` returning a
    cursor with ``fetchone``/``fetchall``/``rowcount``).
    """

    def __init__(self, blob: str, part: str, mark: str) -> None:
        self.blob, self.part, self.mark = blob, part, mark

    def _sql(self, text: str) -> str:
        return text.format(blob=self.blob, part=self.part).replace("?", self.mark)

    def put(self, db: Any, content: str, parts: Mapping[str, bytes], previous: str | None) -> None:
        """Name ``parts`` as the parts of the new ``content``: each blob written once; a part that replaces one of
        ``previous`` (the same provider's previous content) turns the previous blob into a patch against the new
        one when that is small (:func:`make_patch`)."""
        sql = self._sql
        before: dict[str, str] = {}
        if previous is not None:
            before = {str(n): str(b) for n, b in db.execute(sql("SELECT name, blob FROM {part} WHERE content = ?"),
                                                            (previous,)).fetchall()}
        for name, data in parts.items():
            digest = blob_hash(data)
            written = db.execute(sql("INSERT INTO {blob} (hash, base, size, data) VALUES (?, NULL, ?, ?) "
                                     "ON CONFLICT (hash) DO NOTHING"), (digest, len(data), data)).rowcount == 1
            db.execute(sql("INSERT INTO {part} (content, name, blob) VALUES (?, ?, ?)"), (content, name, digest))
            old = before.get(name)
            if not written or old is None or old == digest:
                continue
            row = db.execute(sql("SELECT data FROM {blob} WHERE hash = ? AND base IS NULL"), (old,)).fetchone()
            patch = make_patch(bytes(row[0]), data) if row is not None else None
            if patch is not None:  # only a whole blob becomes a patch, and only against one written just now
                db.execute(sql("UPDATE {blob} SET base = ?, data = ? WHERE hash = ? AND base IS NULL"),
                           (digest, patch, old))

    def read(self, db: Any, content: str) -> dict[str, bytes]:
        """The parts of ``content`` by name; a part whose blob (or a blob of its patch chain) is missing or does
        not apply is left out, so the content hash check fails (a damaged store)."""
        sql = self._sql
        rows = db.execute(sql("SELECT p.name, b.base, b.data FROM {part} p JOIN {blob} b ON b.hash = p.blob "
                              "WHERE p.content = ?"), (content,)).fetchall()

        def fetch(name: str) -> tuple[str | None, bytes] | None:
            row = db.execute(sql("SELECT base, data FROM {blob} WHERE hash = ?"), (name,)).fetchone()
            return None if row is None else (row[0], bytes(row[1]))

        parts: dict[str, bytes] = {}
        for name, base, data in rows:
            if base is None:
                parts[str(name)] = bytes(data)
                continue
            try:
                whole = resolve(str(base), fetch)
                if whole is not None:
                    parts[str(name)] = apply_patch(whole, bytes(data))
            except ValueError:
                continue
        return parts

    def damaged(self, db: Any, content: str) -> set[str]:
        """The blobs of ``content`` whose bytes no longer match their hash, with every blob patched against them
        (directly or down a chain): none of them can be read."""
        sql = self._sql

        def fetch(name: str) -> tuple[str | None, bytes] | None:
            row = db.execute(sql("SELECT base, data FROM {blob} WHERE hash = ?"), (name,)).fetchone()
            return None if row is None else (row[0], bytes(row[1]))

        bad: set[str] = set()
        for (blob,) in db.execute(sql("SELECT blob FROM {part} WHERE content = ?"), (content,)).fetchall():
            try:
                data = resolve(str(blob), fetch)
            except ValueError:
                data = None
            if data is None or blob_hash(data) != blob:
                bad.add(str(blob))
        frontier = set(bad)
        while frontier:
            marks = ", ".join("?" * len(frontier))
            found = {str(h) for (h,) in db.execute(sql(f"SELECT hash FROM {{blob}} WHERE base IN ({marks})"),
                                                   tuple(frontier)).fetchall()}
            frontier = found - bad
            bad |= found
        return bad

    def contents_using(self, db: Any, blobs: Iterable[str]) -> set[str]:
        """The contents that name any of ``blobs``."""
        names = tuple(blobs)
        if not names:
            return set()
        marks = ", ".join("?" * len(names))
        return {str(c) for (c,) in db.execute(self._sql(f"SELECT DISTINCT content FROM {{part}} WHERE blob IN "
                                                        f"({marks})"), names).fetchall()}

    def forget(self, db: Any, blobs: Iterable[str]) -> None:
        """Delete ``blobs`` whatever uses them (damaged ones: see :meth:`damaged`)."""
        for blob in blobs:
            db.execute(self._sql("DELETE FROM {blob} WHERE hash = ?"), (blob,))

    def collect(self, db: Any) -> tuple[int, int]:
        """Delete the blobs no content names and no kept blob is patched against (repeated: deleting a patch may
        free its base). Returns (blobs deleted, bytes of stored data freed)."""
        sql = self._sql
        unused = sql("SELECT hash FROM {blob} b WHERE NOT EXISTS (SELECT 1 FROM {part} p WHERE p.blob = b.hash) "
                     "AND NOT EXISTS (SELECT 1 FROM {blob} c WHERE c.base = b.hash)")
        count = freed = 0
        while True:
            found = db.execute(f"SELECT count(*), coalesce(sum(length(data)), 0) FROM {self.blob} WHERE hash IN "
                               f"({unused})").fetchone()
            if not found or not int(found[0]):
                return count, freed
            db.execute(f"DELETE FROM {self.blob} WHERE hash IN ({unused})")
            count, freed = count + int(found[0]), freed + int(found[1])
