"""API keys: parsed from JURIST_API_KEYS, kept only as hashes, matched from a Bearer header."""

import hashlib

import pytest

from jurist.server._keys import MIN_SECRET_LENGTH, ApiKey, KeyRing, hash_key, new_key

CI_SECRET = "ci-secret-0123456789abcdef"
OPS_SECRET = "ops-secret-fedcba9876543210"
OPS_HASH = hashlib.sha256(OPS_SECRET.encode()).hexdigest()


def test_plain_and_hashed_entries_both_identify_their_key():
    ring = KeyRing.parse(f" ci:{CI_SECRET} , ops:sha256:{OPS_HASH.upper()} ")
    assert len(ring) == 2
    assert ring
    assert ring.identify(f"Bearer {CI_SECRET}") == ApiKey("ci", hash_key(CI_SECRET))
    assert ring.identify(f"Bearer {OPS_SECRET}").id == "ops"


def test_a_plain_secret_is_not_kept_anywhere_on_the_ring():
    ring = KeyRing.parse(f"ci:{CI_SECRET}")
    assert CI_SECRET not in repr(vars(ring))
    assert all(CI_SECRET not in (key.id + key.sha256) for key in ring._keys)


@pytest.mark.parametrize("text", [None, "", "   ", ","])
def test_no_keys_configured(text):
    ring = KeyRing.parse(text)
    assert not ring
    assert len(ring) == 0
    assert ring.identify(f"Bearer {CI_SECRET}") is None


def test_the_scheme_is_case_insensitive():
    ring = KeyRing.parse(f"ci:{CI_SECRET}")
    assert ring.identify(f"bearer {CI_SECRET}").id == "ci"
    assert ring.identify(f"BEARER   {CI_SECRET}  ").id == "ci"


@pytest.mark.parametrize(
    "header",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        CI_SECRET,
        f"Basic {CI_SECRET}",
        f"Bearer {CI_SECRET} extra",
        f"Bearer {CI_SECRET}x",
        f"Bearer {CI_SECRET[:-1]}",
        "Bearer wrong-secret-0123456789",
        f"Bearer {hash_key(CI_SECRET)}",  # the stored hash is not a key
        "Bearer çi-secret-0123456789abcdef",
    ],
)
def test_missing_malformed_or_unknown_headers_identify_nothing(header):
    assert KeyRing.parse(f"ci:{CI_SECRET}").identify(header) is None


def test_identify_compares_against_every_key_without_stopping_early(monkeypatch):
    ring = KeyRing.parse(f"ci:{CI_SECRET},ops:{OPS_SECRET},dev:dev-secret-0123456789ab")
    compared: list[str] = []
    real = __import__("hmac").compare_digest

    def spy(a, b):
        compared.append(b)
        return real(a, b)

    monkeypatch.setattr("jurist.server._keys.hmac.compare_digest", spy)
    assert ring.identify(f"Bearer {CI_SECRET}").id == "ci"
    assert compared == [key.sha256 for key in ring._keys]


def test_new_keys_are_long_random_and_hash_to_what_they_say():
    secret, digest = new_key()
    other, _ = new_key()
    assert secret.startswith("jur_")
    assert len(secret) >= 40
    assert secret != other
    assert digest == hash_key(secret) == hashlib.sha256(secret.encode()).hexdigest()
    ring = KeyRing.parse(f"fresh:sha256:{digest}")
    assert ring.identify(f"Bearer {secret}").id == "fresh"


def test_repr_shows_ids_only():
    ring = KeyRing.parse(f"ci:{CI_SECRET},ops:sha256:{OPS_HASH}")
    assert repr(ring) == "KeyRing(ids=['ci', 'ops'])"
    key = ring.identify(f"Bearer {CI_SECRET}")
    assert repr(key) == "ApiKey(id='ci', role='user')"
    assert hash_key(CI_SECRET) not in repr(key)
    assert OPS_HASH not in repr(ring)


@pytest.mark.parametrize(
    ("text", "position", "problem"),
    [
        (f"ci:{CI_SECRET},{OPS_SECRET}", 2, "no ':'"),
        (f"ci:{CI_SECRET},:{OPS_SECRET}", 2, "key id must be 1-64 characters"),
        (f"ci:{CI_SECRET},bad id!:{OPS_SECRET}", 2, "key id must be 1-64 characters"),
        (f"{'x' * 65}:{OPS_SECRET}", 1, "key id must be 1-64 characters"),
        ("ci:", 1, "empty secret"),
        ("ci:short-secret", 1, f"minimum of {MIN_SECRET_LENGTH}"),
        (f"ci:{CI_SECRET},ci:{OPS_SECRET}", 2, "key id 'ci' is already used by entry 1"),
        (f"ci:{CI_SECRET},ops:{CI_SECRET}", 2, "same secret as entry 1 ('ci')"),
        (f"ci:{CI_SECRET},ops:sha256:{hash_key(CI_SECRET)}", 2, "same secret as entry 1"),
        ("ci:sha256:abc123", 1, "64 hex digits (got 6 characters)"),
        (f"ci:sha256:{'g' * 64}", 1, "64 hex digits"),
        ("ci:secret with spaces inside", 1, "printable ASCII without spaces"),
        ("ci:sécret-0123456789abcdef", 1, "printable ASCII without spaces"),
    ],
)
def test_errors_name_the_variable_the_entry_and_the_problem(text, position, problem):
    with pytest.raises(ValueError, match="JURIST_API_KEYS") as caught:
        KeyRing.parse(text)
    message = str(caught.value)
    assert f"entry {position}:" in message
    assert problem in message


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("ci:tooshort-1234", ["tooshort-1234"]),
        ("ops-secret-fedcba9876543210", ["ops-secret-fedcba9876543210"]),
        ("pasted secret here:x", ["pasted secret here"]),
        ("ci:has a space 0123456789", ["has a space 0123456789"]),
        (f"a:{CI_SECRET},b:{CI_SECRET}", [CI_SECRET, hash_key(CI_SECRET)]),
        (f"a:{CI_SECRET},a:{OPS_SECRET}", [CI_SECRET, OPS_SECRET]),
        ("ci:sha256:0123456789abcdef-not-hex", ["0123456789abcdef-not-hex"]),
    ],
)
def test_errors_never_show_secret_text(text, secrets):
    with pytest.raises(ValueError, match="JURIST_API_KEYS: entry") as caught:
        KeyRing.parse(text)
    message = str(caught.value)
    for secret in secrets:
        assert secret not in message
    assert caught.value.__cause__ is None


def test_a_ring_built_directly_refuses_duplicates():
    key = ApiKey("ci", hash_key(CI_SECRET))
    with pytest.raises(ValueError, match="unique"):
        KeyRing([key, ApiKey("ci", hash_key(OPS_SECRET))])
    with pytest.raises(ValueError, match="same secret"):
        KeyRing([key, ApiKey("ops", key.sha256)])
