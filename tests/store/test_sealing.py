"""Raw content sealed at rest: round trip, wrong keys, rotation, and the settings that ask
for it."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from cryptography.fernet import Fernet

from jurist.server import ConfigError, ServiceSettings, create_app, load_config
from jurist.server._sealing import (
    Sealer,
    SealError,
    content_sealer,
    new_encryption_key,
    sealer_for,
)
from jurist.settings import Settings

CONTENT = {"request": {"output": "mail ada@example.com", "n": [1, 2.5, None, True]}}


def test_a_sealed_record_unseals_to_what_was_sealed_and_hides_it_meanwhile():
    sealer = Sealer([new_encryption_key()])
    token = sealer.seal("r1", CONTENT)
    assert token.isascii()
    assert "ada@example.com" not in token
    assert "output" not in token
    assert sealer.unseal("r1", token) == CONTENT
    # Fernet tokens carry a random IV: the same content never seals to the same text.
    assert sealer.seal("r1", CONTENT) != token


def test_another_key_cannot_unseal():
    token = Sealer([new_encryption_key()]).seal("r1", CONTENT)
    with pytest.raises(SealError, match="rotated away"):
        Sealer([new_encryption_key()]).unseal("r1", token)


def test_a_token_moved_to_another_record_does_not_unseal():
    sealer = Sealer([new_encryption_key()])
    with pytest.raises(SealError, match="another record"):
        sealer.unseal("r2", sealer.seal("r1", CONTENT))


def test_an_altered_token_does_not_unseal():
    sealer = Sealer([new_encryption_key()])
    token = sealer.seal("r1", CONTENT)
    altered = token[:-6] + ("A" if token[-6] != "A" else "B") + token[-5:]
    with pytest.raises(SealError):
        sealer.unseal("r1", altered)
    with pytest.raises(SealError):
        sealer.unseal("r1", "not a token é")


def test_rotation_seals_with_the_first_key_and_unseals_with_any():
    old, new = new_encryption_key(), new_encryption_key()
    sealed_before = Sealer.parse(old).seal("r1", CONTENT)
    rotated = Sealer.parse(f"{new}, {old}")
    assert rotated.key_count == 2
    assert rotated.unseal("r1", sealed_before) == CONTENT
    sealed_after = rotated.seal("r2", CONTENT)
    assert Sealer.parse(new).unseal("r2", sealed_after) == CONTENT
    with pytest.raises(SealError):
        Sealer.parse(old).unseal("r2", sealed_after)
    # Once the old key is dropped, what only it sealed is lost: said, not crashed on.
    with pytest.raises(SealError):
        Sealer.parse(new).unseal("r1", sealed_before)


def test_a_bad_key_is_refused_by_position_without_echoing_it():
    good = new_encryption_key()
    with pytest.raises(ValueError, match="key 2 of 2 is not a Fernet key") as raised:
        Sealer.parse(f"{good},not-a-key-at-all")
    assert "not-a-key-at-all" not in str(raised.value)
    assert good not in str(raised.value)
    with pytest.raises(ValueError, match="holds no key"):
        Sealer.parse(" , ")
    assert Fernet(new_encryption_key().encode())  # what new-key prints is a Fernet key


def test_raw_storage_without_a_key_is_refused():
    assert sealer_for(False, "") is None
    with pytest.raises(ValueError, match="JURIST_STORE_RAW=true needs JURIST_ENCRYPTION_KEY"):
        sealer_for(True, "  ")
    assert sealer_for(True, new_encryption_key()) is not None
    # Keys without raw storage still unseal what was stored while it was on.
    assert sealer_for(False, new_encryption_key()) is not None


def test_the_service_refuses_to_start_storing_raw_without_a_key(tmp_path):
    settings = Settings(JURIST_HOME=str(tmp_path), JURIST_CACHE="0")
    # Sealed content (the default) makes its own key on SQLite; redacted content with a raw
    # copy needs one given.
    config = ServiceSettings(JURIST_STORE_RAW="true", JURIST_STORE_CONTENT="redacted")
    with pytest.raises(ConfigError, match="JURIST_STORE_RAW=true needs JURIST_ENCRYPTION_KEY"):
        create_app(settings, config, model="test:judge")


def test_a_bad_key_in_the_environment_names_the_variable_and_hides_the_value(monkeypatch):
    monkeypatch.setenv("JURIST_STORE_RAW", "true")
    monkeypatch.setenv("JURIST_ENCRYPTION_KEY", "hunter2-secret")
    with pytest.raises(ConfigError, match="JURIST_ENCRYPTION_KEY") as raised:
        load_config()
    assert "hunter2-secret" not in str(raised.value)


def test_the_key_is_never_shown_in_the_settings_repr():
    key = new_encryption_key()
    config = ServiceSettings(JURIST_ENCRYPTION_KEY=key)
    assert key not in repr(config)
    assert repr(Sealer.parse(key)) == "Sealer(1 key)"


def test_a_key_made_for_sealed_content_is_made_once_even_by_processes_starting_together(
    tmp_path,
):
    home = tmp_path / "home"
    barrier = threading.Barrier(8)

    def start() -> str:
        barrier.wait()
        sealer, path = content_sealer("", sqlite=True, home=home)
        assert path == home / "encryption.key"
        return sealer.seal("r1", {"n": 1})

    with ThreadPoolExecutor(8) as pool:
        tokens = list(pool.map(lambda _: start(), range(8)))
    key = (home / "encryption.key").read_text().strip()
    # Every one of them sealed with the one key in the file; no draft is left beside it.
    assert all(Sealer.parse(key).unseal("r1", token) == {"n": 1} for token in tokens)
    assert sorted(p.name for p in home.iterdir()) == ["encryption.key"]


def test_a_key_file_with_no_key_is_refused_by_name(tmp_path):
    (tmp_path / "encryption.key").write_text("\n")
    with pytest.raises(ValueError, match=r"encryption\.key holds no key"):
        content_sealer("", sqlite=True, home=tmp_path)


def test_sealed_content_takes_the_given_key_and_needs_one_beyond_sqlite(tmp_path):
    key = new_encryption_key()
    sealer, path = content_sealer(key, sqlite=False, home=tmp_path)
    assert path is None
    assert Sealer.parse(key).unseal("r", sealer.seal("r", {"a": 1})) == {"a": 1}
    with pytest.raises(ValueError, match="JURIST_ENCRYPTION_KEY") as refused:
        content_sealer(" ", sqlite=False, home=tmp_path)
    assert "JURIST_STORE_CONTENT=redacted" in str(refused.value)
    assert not (tmp_path / "encryption.key").exists()


def test_content_orjson_cannot_write_is_sealed_all_the_same():
    sealer = Sealer.parse(new_encryption_key())
    content = {"output": {"big": 2**70, "text": "é ☃"}, "n": [1, 2.5, None, True]}
    assert sealer.unseal("r", sealer.seal("r", content)) == content
