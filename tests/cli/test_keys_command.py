"""`jurist keys new/list/rotate/revoke` on the service's database, as an operator runs them
(a running service following them is tested with the service's tests)."""

import json

import pytest

from cli_keys import keys_command as jurist
from cli_keys import secret_of

SCHEMA_ONLY = {
    "output": {"answer": "ok"},
    "validation_types": ["schema"],
    "expected_schema": {"type": "object", "required": ["answer"]},
}


@pytest.fixture
def database(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'service.sqlite3'}"


def test_keys_are_made_listed_rotated_and_revoked_in_the_database(database):
    made = jurist(database, "new", "ci", "--role", "admin", "--rate-limit", "60/minute")
    assert made.exit_code == 0, made.output
    secret = secret_of(made.stdout)
    assert secret.startswith("jur_")
    listed = json.loads(jurist(database, "list", "--json").stdout)
    assert [(k["id"], k["role"], k["active"], k["rate_limit"]) for k in listed] == [
        ("ci", "admin", True, "60/minute")
    ]
    assert secret not in jurist(database, "list").stdout
    rotated = jurist(database, "rotate", "ci", "--grace", "5")
    assert rotated.exit_code == 0
    assert secret_of(rotated.stdout) != secret
    assert "5 more minutes" in rotated.stdout
    assert jurist(database, "revoke", "ci").exit_code == 0
    assert json.loads(jurist(database, "list", "--json").stdout)[0]["active"] is False


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("new", "a b"), "key id"),
        (("new", "ci", "--role", "root"), "role"),
        (("new", "ci", "--rate-limit", "fast"), "--rate-limit"),
        (("revoke", "nobody"), "no key 'nobody'"),
        (("rotate", "nobody"), "no active key 'nobody'"),
    ],
)
def test_mistakes_exit_2_naming_what_to_fix(database, args, problem):
    result = jurist(database, *args)
    assert result.exit_code == 2
    assert problem in result.output
    assert "Traceback" not in result.output


def test_a_taken_id_is_refused(database):
    assert jurist(database, "new", "ci").exit_code == 0
    again = jurist(database, "new", "ci")
    assert again.exit_code == 2
    assert "exists" in again.output
