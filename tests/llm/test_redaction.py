"""PII redaction: the offline Presidio redactor, JSON and request redaction, and loading a
redactor from JURIST_REDACTOR. Presidio is real here (it needs no network); its engine is
built once per process."""

import asyncio
import dataclasses
import itertools
import os
import subprocess
import sys
import textwrap
import threading

import pytest
from redactors import SHOUTING, Shouting

from jurist.llm import (
    ErrorKind,
    Hooked,
    Message,
    ModelError,
    PresidioRedactor,
    Redactor,
    Request,
    load_redactor,
    redact_json,
    redaction_hook,
)
from jurist.llm._redaction import FunctionRedactor
from jurist.llm._spans import _OVERLAP, _WINDOW, Span, resolve_overlaps
from jurist.llm._spans import windows as _windows
from scripted import ScriptedModel, answer

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "-----END RSA PRIVATE KEY-----"
)


@pytest.fixture(scope="module")
def presidio() -> PresidioRedactor:
    redactor = PresidioRedactor()
    redactor.load()
    return redactor


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mail john.doe@example.com today.", "Mail <EMAIL_ADDRESS> today."),
        ("Call me on 415-555-0132 tomorrow.", "Call me on <PHONE_NUMBER> tomorrow."),
        ("Reach me at +44 20 7946 0958.", "Reach me at <PHONE_NUMBER>."),
        ("Card 4111 1111 1111 1111 expires soon.", "Card <CREDIT_CARD> expires soon."),
        ("The server is at 192.168.1.20 now.", "The server is at <IP_ADDRESS> now."),
        ("IBAN DE89 3704 0044 0532 0130 00, please.", "IBAN <IBAN_CODE>, please."),
        ("My SSN is 536-22-1234.", "My SSN is <US_SSN>."),
        ("Docs at https://example.org/guide?page=2 here.", "Docs at <URL> here."),
        ("Use sk-proj-abcdefghijklmnopqrstuvwx12 for it.", "Use <API_KEY> for it."),
        ("AWS key AKIAIOSFODNN7EXAMPLE leaked.", "AWS key <API_KEY> leaked."),
        ("git ghp_abcdefghijklmnopqrstuvwxyz0123456789 ok", "git <API_KEY> ok"),
        ("Authorization: Bearer abcdef123456ghijkl", "Authorization: Bearer <AUTH_TOKEN>"),
        (
            "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc_DEF-123 expired",
            "token <AUTH_TOKEN> expired",
        ),
        ("password: hunter22 and PASSWD=s3cr3t!", "password: <PASSWORD> and PASSWD=<PASSWORD>"),
        (f"Key:\n{PEM}\nend", "Key:\n<PRIVATE_KEY>\nend"),
    ],
)
def test_personal_data_and_secrets_are_replaced_by_their_type(presidio, text, expected):
    assert presidio.redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "The Eiffel Tower was finished in 1889 and cost 7,799,401 francs.",
        "Python 3.11.7 scored 0.85 on 12 of 20 tasks at 12:30 on 2024-05-01.",
        "Invoice 2024-000123 covers order 4415550132 for 3 items.",
        "Send the report by e-mail; the link is in the wiki under Security.",
        "Clients use the Bearer authentication scheme with a password.",
        "The first program ran on the Analytical Engine in 1843.",
        "",
        "   \n",
    ],
)
def test_ordinary_prose_and_numbers_are_left_alone(presidio, text):
    assert presidio.redact(text) == text


def test_url_fragments_inside_an_email_do_not_mangle_it(presidio):
    # Presidio's URL pattern also finds "john.do" and "example.com" in the address.
    text = "Write to john.doe@example.com or jane@mail.example.co.uk."
    assert presidio.redact(text) == "Write to <EMAIL_ADDRESS> or <EMAIL_ADDRESS>."


def test_the_surest_of_overlapping_findings_wins():
    text = "Write to john.doe@example.com today"
    email = Span("EMAIL_ADDRESS", 9, 29, 1.0)
    fragments = [Span("URL", 9, 16, 0.5), Span("URL", 18, 29, 0.5)]
    assert resolve_overlaps(text, [*fragments, email]) == [email]


def test_a_partly_overlapped_finding_keeps_its_uncovered_parts_redacted():
    text = "see https://x.com/a?u=john@example.com ok"
    url = Span("URL", 4, 38, 0.6)
    email = Span("EMAIL_ADDRESS", 22, 38, 1.0)
    assert resolve_overlaps(text, [url, email]) == [Span("URL", 4, 22, 0.6), email]


def test_leftovers_without_a_letter_or_digit_are_not_redacted():
    text = "ab -- cd"
    spans = [Span("A", 0, 2, 0.9), Span("B", 6, 8, 0.9), Span("C", 0, 8, 0.5)]
    assert resolve_overlaps(text, spans) == spans[:2]


def test_equal_findings_found_twice_count_once():
    span = Span("EMAIL_ADDRESS", 0, 5, 1.0)
    assert resolve_overlaps("a@b.c", [span, span]) == [span]


def test_the_narrower_entity_list_is_respected(presidio):
    text = "Mail ada@example.com or call 415-555-0132 on 2024-05-01."
    emails_only = PresidioRedactor(entities=["EMAIL_ADDRESS"])
    assert emails_only.redact(text) == "Mail <EMAIL_ADDRESS> or call 415-555-0132 on 2024-05-01."
    dates = PresidioRedactor(entities=["DATE_TIME"])
    assert dates.redact(text) == "Mail ada@example.com or call 415-555-0132 on <DATE_TIME>."


def test_a_lower_threshold_catches_phone_numbers_without_a_cue(presidio):
    text = "Figures: 415.555.0132 and nothing else."
    assert presidio.redact(text) == text
    eager = PresidioRedactor(score_threshold=0.4)
    assert eager.redact(text) == "Figures: <PHONE_NUMBER> and nothing else."


def test_unknown_entities_are_named_when_the_engine_loads(presidio):
    redactor = PresidioRedactor(entities=["EMAIL_ADDRESS", "HAT_SIZE", "SHOE_SIZE"])
    with pytest.raises(ValueError, match="'HAT_SIZE', 'SHOE_SIZE'") as caught:
        redactor.load()
    assert "EMAIL_ADDRESS" in str(caught.value)  # the known ones are listed
    with pytest.raises(ValueError, match="unknown entity"):
        redactor.redact("hello")


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"entities": []}, "non-empty sequence"),
        ({"entities": "EMAIL_ADDRESS"}, "non-empty sequence"),
        ({"score_threshold": 1.5}, "between 0 and 1, got 1.5"),
        ({"score_threshold": -0.1}, "between 0 and 1"),
    ],
)
def test_bad_arguments_are_refused_at_once(arguments, problem):
    with pytest.raises(ValueError, match=problem):
        PresidioRedactor(**arguments)


def test_long_texts_are_analysed_in_windows_without_losing_findings(presidio):
    paragraph = "Contact ada@example.com or card 4111 1111 1111 1111 about item 1889.\n"
    text = paragraph * 400
    assert len(text) > 5 * _WINDOW
    redacted = presidio.redact(text)
    assert redacted == "Contact <EMAIL_ADDRESS> or card <CREDIT_CARD> about item 1889.\n" * 400


@pytest.mark.parametrize("offset", range(-30, 30, 7))
def test_a_finding_with_spaces_across_a_window_edge_is_found_whole(presidio, offset):
    filler = "lorem ipsum dolor sit amet " * 400
    position = _WINDOW + offset
    text = filler[:position] + " 4111 1111 1111 1111 " + filler[position:]
    assert "4111" not in presidio.redact(text)
    assert presidio.redact(text).count("<CREDIT_CARD>") == 1


def test_windows_cover_the_text_overlap_and_end_at_whitespace():
    text = ("word " * 3000) + "x" * 9000 + (" tail" * 500)
    windows = _windows(text)
    assert windows[0][0] == 0
    assert windows[-1][1] == len(text)
    for (_, end), (next_start, _) in itertools.pairwise(windows):
        assert end - _OVERLAP <= next_start < end
    for _, end in windows[:-1]:
        inside_long_word = text[end - 1] == "x" and text[end] == "x"
        assert text[end - 1].isspace() or inside_long_word


def test_a_window_never_ends_inside_a_private_key():
    text = "word " * 790 + PEM + " after" * 1000
    start_of_key = text.index("-----BEGIN")
    assert start_of_key < _WINDOW < start_of_key + len(PEM)
    for _, end in _windows(text):
        assert not start_of_key < end < start_of_key + len(PEM)


def test_a_short_text_is_one_window():
    assert _windows("hello") == [(0, 5)]


class Brackets:
    """A fast fake redactor that marks what it saw."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def redact(self, text: str) -> str:
        self.threads.append(threading.get_ident())
        return f"[{text}]"


def test_redact_json_redacts_every_string_and_keeps_keys_and_other_values():
    value = {
        "name": "ada",
        "tags": ["x", 1, None, {"deep": "y"}],
        "pair": ("z", 2.5),
        "ok": True,
        "count": 3,
    }
    assert redact_json(value, Brackets()) == {
        "name": "[ada]",
        "tags": ["[x]", 1, None, {"deep": "[y]"}],
        "pair": ("[z]", 2.5),
        "ok": True,
        "count": 3,
    }
    assert redact_json("plain", Brackets()) == "[plain]"
    assert redact_json(7, Brackets()) == 7


def test_redact_json_with_presidio(presidio):
    value = {"user": {"email": "ada@example.com", "age": 36}, "notes": ["call 415-555-0132"]}
    assert redact_json(value, presidio) == {
        "user": {"email": "<EMAIL_ADDRESS>", "age": 36},
        "notes": ["call <PHONE_NUMBER>"],
    }


def test_a_redactor_returning_something_else_than_text_is_an_error():
    class Broken:
        def redact(self, text: str) -> str:
            return None  # type: ignore[return-value]

    with pytest.raises(TypeError, match="returned a NoneType, not a str"):
        redact_json(["x"], Broken())


async def test_the_hook_redacts_what_the_model_receives(presidio):
    model = ScriptedModel(script=[answer()])
    request = Request.of(
        "Summarise the mail from ada@example.com, phone +1 415-555-0132.",
        system="You are a judge. Never reveal AKIAIOSFODNN7EXAMPLE.",
        temperature=0.3,
        max_tokens=50,
    )
    await Hooked(model, on_request=[redaction_hook(presidio)]).complete(request)
    sent = model.requests[0]
    assert sent.messages == (
        Message("system", "You are a judge. Never reveal <API_KEY>."),
        Message("user", "Summarise the mail from <EMAIL_ADDRESS>, phone <PHONE_NUMBER>."),
    )
    assert dataclasses.replace(sent, messages=request.messages) == request


async def test_the_hook_runs_the_redactor_off_the_event_loop():
    redactor = Brackets()
    model = ScriptedModel(script=[answer(), answer()])
    hooked = Hooked(model, on_request=[redaction_hook(redactor)])
    await asyncio.gather(hooked.complete(Request.of("one")), hooked.complete(Request.of("two")))
    assert sorted(r.messages[0].content for r in model.requests) == ["[one]", "[two]"]
    assert threading.get_ident() not in redactor.threads


async def test_a_failing_redactor_stops_the_call():
    class Failing:
        def redact(self, text: str) -> str:
            raise RuntimeError("engine missing")

    model = ScriptedModel(script=[answer()])
    with pytest.raises(ModelError) as caught:
        await Hooked(model, on_request=[redaction_hook(Failing())]).complete(Request.of("x"))
    assert caught.value.kind is ErrorKind.CLIENT_ERROR
    assert "redaction_hook" in str(caught.value)
    assert "engine missing" in str(caught.value)
    assert model.calls == 0


@pytest.mark.parametrize("spec", [None, "", "  ", "presidio", "Presidio"])
def test_the_default_redactor_is_presidio(spec):
    redactor = load_redactor(spec)
    assert isinstance(redactor, PresidioRedactor)
    assert redactor.entities == PresidioRedactor().entities


def test_a_class_is_instantiated_and_an_instance_used_as_it_is():
    built = load_redactor("redactors:Shouting")
    assert isinstance(built, Shouting)
    assert built is not SHOUTING
    assert load_redactor(" redactors:SHOUTING ") is SHOUTING
    assert isinstance(load_redactor("redactors:Namespace.inner"), Shouting)


def test_a_function_becomes_a_redactor():
    redactor = load_redactor("redactors:shout")
    assert isinstance(redactor, FunctionRedactor)
    assert isinstance(redactor, Redactor)
    assert redactor.redact("quiet") == "QUIET!"


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("redactors", "neither 'presidio' nor 'module:attribute'"),
        ("redactors:", "neither 'presidio' nor 'module:attribute'"),
        (":Shouting", "neither 'presidio' nor 'module:attribute'"),
        ("no_such_module_for_jurist:Thing", "cannot import 'no_such_module_for_jurist'"),
        ("redactors:Absent", "has no attribute 'Absent'"),
        ("redactors:NUMBER", "is a int, not a redactor"),
        ("redactors:NeedsArguments", "could not be built with no arguments"),
        ("redactors:NoRedactMethod", "has no redact(text) method"),
    ],
)
def test_bad_specs_name_the_variable(spec, problem):
    with pytest.raises(ValueError, match="JURIST_REDACTOR") as caught:
        load_redactor(spec)
    assert problem in str(caught.value)


def test_presidio_loads_and_redacts_without_the_network_or_import_side_effects():
    # A fresh interpreter, so the engine is built here; every attempt to reach the network
    # is recorded by an audit hook (raising instead could be swallowed by a fallback).
    script = textwrap.dedent(
        """
        import os, sys
        attempts = []
        NETWORK = {"socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                   "socket.sendto", "urllib.Request"}
        sys.addaudithook(lambda event, args: event in NETWORK and attempts.append(event))
        import jurist.llm
        assert "presidio_analyzer" not in sys.modules, "import jurist.llm loaded presidio"
        assert "spacy" not in sys.modules, "import jurist.llm loaded spacy"
        assert "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS" not in os.environ
        print(jurist.llm.PresidioRedactor().redact("Mail ada@example.com now"))
        print(attempts)
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Mail <EMAIL_ADDRESS> now", "[]"]


def test_repr_names_the_settings():
    assert repr(PresidioRedactor(["URL"], 0.7)) == (
        "PresidioRedactor(entities=['URL'], score_threshold=0.7)"
    )


def test_redact_json_with_presidio_redacts_many_strings_as_each_alone(presidio):
    """Presidio sees a record's strings as one text: the result is what each alone gives."""
    strings = [
        "ada@example.com",
        "object",
        "call 415-555-0132 today",
        "",
        "card 4111 1111 1111 1111",
        "in 1889",
    ]
    value = {"fields": strings, "nested": {"again": strings[0]}}
    assert redact_json(value, presidio) == {
        "fields": [presidio.redact(text) for text in strings],
        "nested": {"again": "<EMAIL_ADDRESS>"},
    }
