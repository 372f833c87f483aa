"""Raw content sealed at rest: JSON encrypted with Fernet (AES-128-CBC and HMAC-SHA256) under
the keys of JURIST_ENCRYPTION_KEY.

    sealer = Sealer.parse(os.environ["JURIST_ENCRYPTION_KEY"])   # "key1,key2,..."
    token = sealer.seal("3f2a...", {"request": ..., "result": ...})
    sealer.unseal("3f2a...", token)                               # the same dict, or SealError

Several keys, comma-separated, rotate: the first seals, every one unseals. A token is bound to
the id of the record it was sealed for, so a sealed copy moved onto another row does not
unseal there.
"""

import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from jurist.core import JuristError, dump_json

VARIABLE = "JURIST_ENCRYPTION_KEY"
CONTENT_VARIABLE = "JURIST_STORE_CONTENT"
# Where a single-machine (SQLite) service keeps the key it made for itself.
KEY_FILE = "encryption.key"

log = logging.getLogger("jurist.server")


class SealError(JuristError):
    """A sealed copy that cannot be unsealed with the keys at hand."""


def sealer_for(store_raw: bool, keys: str) -> "Sealer | None":
    """The service's sealer: None without keys, which JURIST_STORE_RAW refuses. Keys without
    JURIST_STORE_RAW still unseal what was stored while it was on."""
    if keys.strip():
        return Sealer.parse(keys)
    if store_raw:
        raise ValueError(
            f"JURIST_STORE_RAW=true needs {VARIABLE}: raw content is only ever stored "
            "encrypted (make a key with `jurist store new-key`)"
        )
    return None


def content_sealer(keys: str, *, sqlite: bool, home: Path) -> tuple["Sealer", Path | None]:
    """The sealer of a service that keeps content sealed (JURIST_STORE_CONTENT=sealed), and
    the key file it read when it made its own key: the keys of JURIST_ENCRYPTION_KEY;
    without them, on SQLite, a key made once into `home/encryption.key` (mode 0600) and read
    again on every later start. Any other database is shared by replicas, which must seal
    with one key: it is refused."""
    if keys.strip():
        return Sealer.parse(keys), None
    if not sqlite:
        raise ValueError(
            f"{CONTENT_VARIABLE}=sealed (the default) needs {VARIABLE} on a database other "
            "than SQLite: every replica must seal and unseal with the same key. Set "
            f"{VARIABLE} (make a key with `jurist store new-key`), or store redacted copies "
            f"instead with {CONTENT_VARIABLE}=redacted"
        )
    path = home / KEY_FILE
    return Sealer.parse(_key_file(path)), path


def warn_of_key_file(path: Path) -> None:
    """Said on every start that seals with a key file: a backup or a replica without the
    key cannot read what it seals."""
    log.warning(
        "records are sealed with the key in %s, made for this machine: set %s to it (and "
        "keep a copy) so backups and replicas can be read",
        path,
        VARIABLE,
    )


def _key_file(path: Path) -> str:
    """The key in `path`, made there first (readable by this user only) when missing."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole beside it, then linked in place: two processes starting at once
        # make one key between them, and neither reads a half-written file.
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mode 0600
        draft = Path(name)
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(new_encryption_key() + "\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    key = path.read_text(encoding="ascii").strip()
    if not key:
        raise ValueError(f"{path} holds no key: remove it to make a new one, or set {VARIABLE}")
    return key


def new_encryption_key() -> str:
    """A fresh key for JURIST_ENCRYPTION_KEY."""
    return Fernet.generate_key().decode("ascii")


class Sealer:
    """Seals and unseals JSON objects with one or more Fernet keys; the first one seals."""

    def __init__(self, keys: list[str]) -> None:
        if not keys:
            raise ValueError(f"{VARIABLE} holds no key")
        fernets = []
        for position, key in enumerate(keys, start=1):
            try:
                fernets.append(Fernet(key.encode("ascii")))
            except (ValueError, UnicodeEncodeError):
                # The key itself is never echoed: it is a secret.
                raise ValueError(
                    f"{VARIABLE}: key {position} of {len(keys)} is not a Fernet key "
                    "(32 bytes in url-safe base64, 44 characters; make one with "
                    "`jurist store new-key`)"
                ) from None
        self._fernet = MultiFernet(fernets)
        self.key_count = len(fernets)

    @classmethod
    def parse(cls, text: str) -> "Sealer":
        """The sealer for a JURIST_ENCRYPTION_KEY value: keys separated by commas."""
        return cls([key.strip() for key in text.split(",") if key.strip()])

    def seal(self, record_id: str, content: Mapping[str, Any]) -> str:
        """`content` as a token (ASCII) that only these keys unseal, for record `record_id`."""
        payload = dump_json({"id": record_id, "content": dict(content)})
        return self._fernet.encrypt(payload).decode("ascii")

    def unseal(self, record_id: str, token: str) -> dict[str, Any]:
        """The content sealed for record `record_id`; `SealError` when no key opens it or it
        was sealed for another record."""
        try:
            payload = json.loads(self._fernet.decrypt(token.encode("ascii")))
        except (InvalidToken, UnicodeEncodeError):
            raise SealError(
                f"no key of {VARIABLE} unseals this record's raw copy (sealed with a key "
                "since rotated away, or altered)"
            ) from None
        if not isinstance(payload, dict) or payload.get("id") != record_id:
            raise SealError("this raw copy was sealed for another record")
        content = payload.get("content")
        if not isinstance(content, dict):
            raise SealError("this raw copy holds no JSON object")
        return content

    def __repr__(self) -> str:
        return f"Sealer({self.key_count} key{'s' if self.key_count != 1 else ''})"
