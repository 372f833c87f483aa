"""PII redaction before text reaches a model: a `Redactor` protocol, an offline Presidio
redactor as the default, and a request hook for `Hooked`.

`PresidioRedactor` runs Presidio's pattern recognizers (e-mail, phone, credit card, IBAN, IP,
national ids of several countries, URL), jurist's own (IPv6, dates of birth, passports, street
addresses, national ids Presidio lacks; API keys, bearer tokens, JWTs, private keys,
passwords; see `_pii_recognizers`) and, when the `server` extra's spaCy model is installed,
its NER for names of people (without it, only names after a cue such as "Dear" or "Mr").
Nothing is downloaded and no network is used: the model ships in
a pinned package, whose files are checked against a sha256 before they are loaded. Without
it, the pipeline is a blank spaCy tokenizer.
"""

import asyncio
import dataclasses
import importlib
import importlib.util
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from jurist.llm._hooks import RequestHook
from jurist.llm._ner_model import ner_model_path
from jurist.llm._redaction_cache import RedactedCache
from jurist.llm._spans import PEM_BLOCK, Span, resolve_overlaps, trimmed, windows
from jurist.llm._types import Request

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine, EntityRecognizer, PatternRecognizer
    from presidio_analyzer.nlp_engine import SpacyNlpEngine
    from presidio_anonymizer import AnonymizerEngine

VARIABLE = "JURIST_REDACTOR"
LANGUAGE = "en"

# What `PresidioRedactor()` looks for. Presidio also knows any date, US passports without a
# cue word, crypto wallets and more; they are left out by default because they mangle
# ordinary text a judge must read ("in 1889", "version 2.1") more often than they hide
# personal data. A date of birth or a passport number has a cue word before it.
DEFAULT_ENTITIES: tuple[str, ...] = (
    "EMAIL_ADDRESS",
    "PHONE_NUMBER",
    "CREDIT_CARD",
    "IBAN_CODE",
    "IP_ADDRESS",
    "URL",
    "PERSON",
    "STREET_ADDRESS",
    "DATE_OF_BIRTH",
    "PASSPORT",
    "US_SSN",
    "UK_NINO",
    "DE_TAX_ID",
    "DE_ID_CARD",
    "FR_NIR",
    "ES_NIF",
    "ES_NIE",
    "IT_FISCAL_CODE",
    "IN_AADHAAR",
    "IN_PAN",
    "BR_CPF",
    "PL_PESEL",
    "AU_TFN",
    "SG_NRIC_FIN",
    "API_KEY",
    "AUTH_TOKEN",
    "PRIVATE_KEY",
    "PASSWORD",
)
# Found mostly by the NER model (without it, only names after a greeting, a title or "my name
# is"); should an engine not know them, the default redactor goes without them.
NER_ENTITIES = frozenset({"PERSON"})

# Only the NER component runs: it has its own token-to-vector layer, and the others (a
# tagger, a parser, a lemmatizer) would double the time per text for nothing the redactor
# reads.
# The model's other labels (OntoNotes), none of which the redactor uses.
_NER_LABELS_IGNORED = (
    "CARDINAL", "DATE", "EVENT", "FAC", "GPE", "LANGUAGE", "LAW", "LOC", "MONEY", "NORP",
    "ORDINAL", "ORG", "PERCENT", "PRODUCT", "QUANTITY", "TIME", "WORK_OF_ART",
)  # fmt: skip
_NER_ONLY_EXCLUDE = ("tok2vec", "tagger", "parser", "senter", "attribute_ruler", "lemmatizer")

# Words near a number that make it a phone number: Presidio's own list plus words people write
# before one. Presidio finds them as parts of lower-cased words ("calls", "numbers"), as the
# blank pipeline has no lemmas; short ones that hide in other words ("tel", "text") are left
# out.
_PHONE_CONTEXT = (
    "phone", "number", "telephone", "cell", "cellphone", "mobile", "call", "sms", "whatsapp",
    "fax", "reach", "contact", "dial",
)  # fmt: skip


logger = logging.getLogger(__name__)


@runtime_checkable
class Redactor(Protocol):
    """Anything that returns a text with its personal data replaced."""

    def redact(self, text: str) -> str: ...


class PresidioRedactor:
    """Replaces each finding with `<ENTITY_TYPE>` (e.g. `<EMAIL_ADDRESS>`).

    `entities` narrows or widens what is looked for (default `DEFAULT_ENTITIES`; any entity
    of Presidio's pattern recognizers works too, such as "DATE_TIME"); findings scoring below
    `score_threshold` are kept as they are. A phone number with no cue word near it ("call",
    "phone", "mobile") and no "+country" or "(area)" prefix scores 0.4, below the default:
    pass 0.4 to catch those as well, at the price of redacting some order numbers.

    The analysis engine is built once per process, on first use (about two seconds), and
    shared by every instance; `load()` builds it early and checks `entities`.

    `redact_json` keeps what it made of each short string it analysed (up to `cache_size`
    strings, the least recently used dropped first; 0 for none) and reads it back when the
    same string comes again, as a record's fixed strings do; see `_redaction_cache`.
    """

    def __init__(
        self,
        entities: Sequence[str] | None = None,
        score_threshold: float = 0.5,
        cache_size: int = 4096,
    ) -> None:
        self._default = entities is None
        chosen = DEFAULT_ENTITIES if entities is None else tuple(entities)
        if isinstance(entities, str) or not chosen:
            raise ValueError(
                "PresidioRedactor.entities must be a non-empty sequence of entity names, "
                'e.g. ["EMAIL_ADDRESS", "PHONE_NUMBER"]'
            )
        if not 0.0 <= score_threshold <= 1.0:
            raise ValueError(
                f"PresidioRedactor.score_threshold must be between 0 and 1, got {score_threshold}"
            )
        self.entities = chosen
        self.score_threshold = score_threshold
        self._cache = RedactedCache(cache_size)
        self.cache_size = cache_size
        self._checked = False

    def load(self) -> None:
        """Builds the shared engine if no one has yet, and checks that it knows `entities`."""
        if self._checked:
            return
        engines = _engines()
        unknown = [name for name in self.entities if name not in engines.supported]
        if self._default and unknown and set(unknown) <= NER_ENTITIES:
            # The default redactor does what it can without the optional model.
            self.entities = tuple(name for name in self.entities if name not in unknown)
            unknown = []
        if unknown:
            raise ValueError(
                f"PresidioRedactor.entities: unknown entity {', '.join(map(repr, unknown))}; "
                f"known: {', '.join(sorted(engines.supported))}"
            )
        self._checked = True

    def redact(self, text: str) -> str:
        """`text` with what was found replaced; always valid Unicode (see `valid_text`)."""
        text = valid_text(text)
        spans = self.findings(text)
        return _replace(_engines().anonymizer, text, spans) if spans else text

    def findings(self, text: str) -> list["Span"]:
        """What `redact` would replace in `text`, as non-overlapping spans in text order."""
        self.load()
        text = valid_text(text)
        if not text.strip():
            return []
        engines = _engines()
        findings: list[Span] = []
        with engines.lock:
            for start, end in windows(text):
                found = engines.analyzer.analyze(
                    text[start:end],
                    language=LANGUAGE,
                    entities=list(self.entities),
                    score_threshold=self.score_threshold,
                )
                findings += [
                    trimmed(text, Span(f.entity_type, start + f.start, start + f.end, f.score))
                    for f in found
                ]
        return resolve_overlaps(text, findings)

    def redact_many(self, texts: Sequence[str]) -> list[str] | None:
        """Each of `texts` redacted, those not seen before in one analysis (see
        `redact_json`); None should a separator not survive it."""
        texts = [valid_text(text) for text in texts]
        done = {text: self._cache.get(text) for text in texts}
        fresh = [text for text, redacted in done.items() if redacted is None]
        if fresh:
            redacted = self.redact(_SEPARATOR.join(fresh)).split(_SEPARATOR)
            if len(redacted) != len(fresh):
                return None
            for text, result in zip(fresh, redacted, strict=True):
                done[text] = result
                self._cache.put(text, result)
        return [str(done[text]) for text in texts]

    def __repr__(self) -> str:
        return (
            f"PresidioRedactor(entities={list(self.entities)!r}, "
            f"score_threshold={self.score_threshold})"
        )


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> str:
    """`text` with every code point UTF-8 cannot encode replaced, so it can be written out.

    Python strings may hold surrogates (from `json.loads` of an escaped "\\ud800", or from
    `os.fsdecode`): a pair becomes the character it encodes, a lone one becomes U+FFFD.
    """
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def redact_json(value: Any, redactor: Redactor) -> Any:
    """`value` with every string in it redacted, at any depth of dicts, lists and tuples.
    Dict keys and non-string values are kept as they are, but for code points UTF-8 cannot
    encode, replaced in keys as in values (see `valid_text`).

    With Presidio, which only replaces the spans it finds, the strings are redacted together,
    in one text with a separator line between them: one analysis costs about what one
    string's does, and a record of many short strings (a request's field values) would
    otherwise pay for each. A short string met before (see `PresidioRedactor`'s
    `cache_size`) is not analysed again, and one that comes twice is analysed once. Should a
    separator not survive, each string is redacted alone.
    Any other redactor sees each string alone, since it may rewrite a text as a whole.
    """
    texts: list[str] = []
    _collect(value, texts)
    if not texts:
        return value
    redacted: list[str] = []
    if isinstance(redactor, PresidioRedactor):
        redacted = redactor.redact_many(texts) or []
    if len(redacted) != len(texts):
        redacted = [_redact(redactor, text) for text in texts]
    return _rebuild(value, iter(redacted))


# A line no finding can span, and which no recognizer takes for personal data.
_SEPARATOR = "\n\n\u2063\u2063\u2063\n\n"


def _collect(value: Any, texts: list[str]) -> None:
    if isinstance(value, str):
        texts.append(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            _collect(item, texts)
    elif isinstance(value, list | tuple):
        for item in value:
            _collect(item, texts)


def _rebuild(value: Any, redacted: Iterator[str]) -> Any:
    if isinstance(value, str):
        return next(redacted)
    if isinstance(value, Mapping):
        return {
            valid_text(key) if isinstance(key, str) else key: _rebuild(item, redacted)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_rebuild(item, redacted) for item in value]
    if isinstance(value, tuple):
        return tuple(_rebuild(item, redacted) for item in value)
    return value


def redaction_hook(redactor: Redactor) -> RequestHook:
    """A request hook for `Hooked` that redacts every message before the model sees it.

    Redaction runs in a worker thread: Presidio takes milliseconds per message, and the
    first call builds its engine, which takes seconds the event loop must not wait.
    """

    async def redact_request(request: Request) -> Request:
        return await asyncio.to_thread(_redact_request, request, redactor)

    redact_request.__qualname__ = f"redaction_hook({type(redactor).__name__})"
    return redact_request


def load_redactor(spec: str | None) -> Redactor:
    """The redactor a JURIST_REDACTOR value names.

    None, blank or "presidio" is `PresidioRedactor()`. "module:attribute" imports the
    attribute: a class is instantiated with no arguments, a redactor instance is used as it
    is, and a plain function from str to str is wrapped as one.
    """
    value = (spec or "").strip()
    if not value or value.lower() == "presidio":
        return PresidioRedactor()
    module_name, colon, attribute = value.partition(":")
    if not colon or not module_name or not attribute:
        raise ValueError(
            f"{VARIABLE}={value!r} is neither 'presidio' nor 'module:attribute' "
            "(e.g. 'mycompany.privacy:Redactor')"
        )
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"{VARIABLE}={value!r}: cannot import {module_name!r}: {exc}") from exc
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ValueError(
                f"{VARIABLE}={value!r}: {module_name!r} has no attribute {attribute!r}"
            ) from None
    return _as_redactor(target, value)


class FunctionRedactor:
    """A function from str to str, as a `Redactor`."""

    def __init__(self, function: Callable[[str], str]) -> None:
        self.function = function

    def redact(self, text: str) -> str:
        return self.function(text)

    def __repr__(self) -> str:
        return f"FunctionRedactor({getattr(self.function, '__qualname__', self.function)!r})"


def _as_redactor(target: Any, spec: str) -> Redactor:
    if isinstance(target, type):
        try:
            target = target()
        except Exception as exc:
            raise ValueError(
                f"{VARIABLE}={spec!r}: the class could not be built with no arguments: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(target, Redactor):
            raise ValueError(f"{VARIABLE}={spec!r}: the class has no redact(text) method")
        return target
    if isinstance(target, Redactor):
        return target
    if callable(target):
        return FunctionRedactor(target)
    raise ValueError(
        f"{VARIABLE}={spec!r} is a {type(target).__name__}, not a redactor class, a redactor "
        "or a function from str to str"
    )


def _redact(redactor: Redactor, text: str) -> str:
    result = redactor.redact(valid_text(text))
    if not isinstance(result, str):
        raise TypeError(f"{redactor!r}.redact returned a {type(result).__name__}, not a str")
    return valid_text(result)


def _redact_request(request: Request, redactor: Redactor) -> Request:
    messages = tuple(
        dataclasses.replace(message, content=_redact(redactor, message.content))
        for message in request.messages
    )
    return dataclasses.replace(request, messages=messages)


def _replace(anonymizer: "AnonymizerEngine", text: str, spans: Sequence[Span]) -> str:
    from presidio_anonymizer.entities import OperatorConfig
    from presidio_anonymizer.entities import RecognizerResult as Replacement

    if not spans:
        return text
    replacements = [Replacement(s.entity_type, s.start, s.end, s.score) for s in spans]
    # "replace" with no new value writes <ENTITY_TYPE>; spans already overlap nowhere.
    result = anonymizer.anonymize(
        text,
        replacements,
        operators={"DEFAULT": OperatorConfig("replace")},
    )
    return str(result.text)


# The engine: built once per process, shared by every PresidioRedactor.


@dataclasses.dataclass(frozen=True)
class _Engines:
    analyzer: "AnalyzerEngine"
    anonymizer: "AnonymizerEngine"
    supported: frozenset[str]
    # spaCy pipelines and Presidio's lazily loaded recognizers are not documented as
    # thread-safe; the analysis is CPU-bound Python, so serialising it costs little.
    lock: threading.Lock


_built: _Engines | None = None
_build_lock = threading.Lock()


def _engines() -> _Engines:
    global _built  # noqa: PLW0603 -- one engine per process, built on first use
    if _built is None:
        with _build_lock:
            if _built is None:
                _built = _build_engines()
    return _built


def _build_engines() -> _Engines:
    # tldextract (used by Presidio's e-mail check) reads this when it is first imported, and
    # fetches the public suffix list from the internet unless it is empty; empty means its
    # bundled snapshot. An operator's own setting is kept.
    if "tldextract" in sys.modules and "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS" not in os.environ:
        logger.warning(
            "tldextract was imported before jurist's redactor; it may fetch the public "
            "suffix list from the internet (set TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS='')"
        )
    os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_anonymizer import AnonymizerEngine

    from jurist.llm import _pii_recognizers as jurist_pii

    model = ner_model_path()
    recognizers = [
        *_presidio_recognizers(),
        jurist_pii.phone_recognizer(_PHONE_CONTEXT),
        *jurist_pii.rule_recognizers(),
        *_secret_recognizers(),
    ]
    if model is not None:
        recognizers.append(jurist_pii.PersonRecognizer())
    registry = RecognizerRegistry(recognizers=recognizers, supported_languages=[LANGUAGE])
    analyzer = AnalyzerEngine(
        registry=registry, nlp_engine=_nlp_engine(model), supported_languages=[LANGUAGE]
    )
    engines = _Engines(
        analyzer=analyzer,
        anonymizer=AnonymizerEngine(),  # type: ignore[no-untyped-call]
        supported=frozenset(analyzer.get_supported_entities(language=LANGUAGE)),
        lock=threading.Lock(),
    )
    # Recognizers load on first use: do that now, under the build lock.
    analyzer.analyze("warm up: ada@example.com", language=LANGUAGE)
    return engines


_LEMMA_COMPONENT = "jurist_lowercase_lemma"


def _nlp_engine(model: Path | None) -> "SpacyNlpEngine":
    """A Presidio NLP engine over the NER model at `model`, or over `spacy.blank("en")`.

    Presidio raises a finding's score when a context word ("phone", "ssn", "card") stands
    near it, comparing lemmas; neither pipeline makes them here, so each word's lemma is set
    to the word in lower case. Presidio looks for context words inside lemmas, so "calls"
    still counts as "call".
    """
    import spacy
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine
    from spacy.language import Language
    from spacy.tokens import Doc

    if not Language.has_factory(_LEMMA_COMPONENT):

        def lowercase_lemma(doc: Doc) -> Doc:
            for token in doc:
                token.lemma_ = token.lower_
            return doc

        Language.component(_LEMMA_COMPONENT, func=lowercase_lemma)

    class JuristSpacyNlpEngine(SpacyNlpEngine):
        def load(self) -> None:
            if model is None:
                nlp = spacy.blank(LANGUAGE)
            else:
                nlp = spacy.load(model, exclude=list(_NER_ONLY_EXCLUDE))
            nlp.add_pipe(_LEMMA_COMPONENT)
            # Presidio skips stop words when it looks for context, and spaCy counts "call"
            # as one; in this pipeline's own vocabulary, context words are not.
            for word in _PHONE_CONTEXT:
                nlp.vocab[word].is_stop = False
            self.nlp = {LANGUAGE: nlp}  # type: ignore[assignment]  # declared as None

    name = "blank" if model is None else str(model)
    # Only people are read from the NER model: a place or a date alone is not personal data,
    # and Presidio logs a warning per text for each label it is not told about.
    config = NerModelConfiguration(
        model_to_presidio_entity_mapping={"PERSON": "PERSON"},
        labels_to_ignore=list(_NER_LABELS_IGNORED),
    )
    return JuristSpacyNlpEngine(
        models=[{"lang_code": LANGUAGE, "model_name": name}], ner_model_configuration=config
    )


def _presidio_recognizers() -> list["EntityRecognizer"]:
    """Presidio's pattern recognizers, named one by one: loading its defaults would add its
    own NER recognizer and log a warning for each recognizer of another language. Those of
    other countries are built for English text, where their ids appear just as well."""
    from presidio_analyzer import predefined_recognizers as presidio

    def english(kind: Callable[..., "EntityRecognizer"]) -> "EntityRecognizer":
        return kind(supported_language=LANGUAGE)

    return [
        presidio.CreditCardRecognizer(),
        presidio.CryptoRecognizer(),
        presidio.DateRecognizer(),
        presidio.EmailRecognizer(),
        presidio.IbanRecognizer(),
        presidio.IpRecognizer(),
        presidio.MacAddressRecognizer(),
        presidio.MedicalLicenseRecognizer(),
        presidio.NhsRecognizer(),
        presidio.UrlRecognizer(),
        presidio.UsBankRecognizer(),
        presidio.UsItinRecognizer(),
        presidio.UsLicenseRecognizer(),
        presidio.UsPassportRecognizer(),
        presidio.UsSsnRecognizer(),
        english(presidio.UkNinoRecognizer),
        english(presidio.EsNifRecognizer),
        english(presidio.EsNieRecognizer),
        english(presidio.ItFiscalCodeRecognizer),
        english(presidio.InAadhaarRecognizer),
        english(presidio.InPanRecognizer),
        english(presidio.PlPeselRecognizer),
        english(presidio.AuTfnRecognizer),
        english(presidio.SgFinRecognizer),
    ]


def _secret_recognizers() -> list["PatternRecognizer"]:
    """Credentials Presidio does not look for. Case-sensitive: the prefixes are exact."""
    from presidio_analyzer import Pattern, PatternRecognizer

    flags = re.DOTALL | re.MULTILINE

    def recognizer(entity: str, *patterns: tuple[str, str, float]) -> PatternRecognizer:
        return PatternRecognizer(
            supported_entity=entity,
            name=f"Jurist{entity.title().replace('_', '')}Recognizer",
            patterns=[Pattern(name, regex, score) for name, regex, score in patterns],
            global_regex_flags=flags,
        )

    return [
        recognizer(
            "API_KEY",
            # OpenAI (sk-, sk-proj-), Anthropic (sk-ant-) and look-alikes.
            ("sk- key", r"\bsk-[A-Za-z0-9_-]{16,}", 0.9),
            ("jurist key", r"\bjur_[A-Za-z0-9_-]{20,}", 0.9),
            ("AWS access key id", r"\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b", 0.9),
            ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})", 0.9),
            ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}", 0.9),
            ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}", 0.9),
            ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}", 0.9),
        ),
        recognizer(
            "AUTH_TOKEN",
            # Only the token after "Bearer" is replaced, so the header stays readable. A
            # token has a digit or is long: "the Bearer authentication scheme" is prose.
            (
                "bearer token",
                r"(?<=\b(?i:bearer)\s+)"
                r"(?:(?=[A-Za-z._~+/-]*\d)[A-Za-z0-9._~+/-]{12,}|[A-Za-z0-9._~+/-]{24,})=*",
                0.8,
            ),
            ("JWT", r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+", 0.9),
        ),
        recognizer(
            "PRIVATE_KEY",
            ("PEM private key", PEM_BLOCK.pattern, 1.0),
        ),
        recognizer(
            "PASSWORD",
            # The value of a password assignment ("password: hunter2", "PASSWD=x"), not the
            # word itself.
            (
                "password assignment",
                r"(?<=\b(?i:password|passwd|pwd)\s*[:=]\s*)[^\s\"',;]{4,}",
                0.7,
            ),
        ),
    ]
