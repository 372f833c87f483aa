"""jurist's own recognizers for personal data that Presidio's predefined ones miss: IPv6
addresses, dates of birth and passport numbers next to a cue word, national ids of several
countries (with their check digits where they have one), street addresses in the formats of
several countries, names of people from a spaCy NER model, and phone numbers in national
formats next to a cue word in several languages.

Each recognizer is a regular expression plus, where a format has one, a checksum: a number
that only looks like an id is left alone, so judges still read order numbers and prices.
Everything here is imported lazily by `_redaction`, as it needs Presidio.
"""

import ipaddress
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from presidio_analyzer import EntityRecognizer, LocalRecognizer, RecognizerResult
from presidio_analyzer.nlp_engine import NlpArtifacts
from presidio_analyzer.predefined_recognizers import PhoneRecognizer

LANGUAGE = "en"


@dataclass(frozen=True)
class Rule:
    """A pattern for one entity. The span replaced is the group named "v" when the pattern
    has one (the cue word before a value stays readable), else the whole match."""

    entity: str
    pattern: re.Pattern[str]
    score: float
    valid: Callable[[str], bool] | None = None


class RuleRecognizer(LocalRecognizer):
    """Findings of `Rule`s, for Presidio's analyzer."""

    def __init__(self, name: str, rules: Sequence[Rule]) -> None:
        self.rules = tuple(rules)
        super().__init__(
            supported_entities=sorted({rule.entity for rule in rules}),
            supported_language=LANGUAGE,
            name=name,
        )

    def load(self) -> None:
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        results = []
        for rule in self.rules:
            if rule.entity not in entities:
                continue
            for match in rule.pattern.finditer(text):
                group = "v" if "v" in rule.pattern.groupindex else 0
                start, end = match.span(group)
                value = match.group(group)
                if start == end or (rule.valid is not None and not rule.valid(value)):
                    continue
                results.append(RecognizerResult(rule.entity, start, end, rule.score))
        return results


class PersonRecognizer(LocalRecognizer):
    """Names of people, as the NLP engine's NER model tagged them (spaCy's PERSON label)."""

    SCORE = 0.85

    def __init__(self) -> None:
        super().__init__(
            supported_entities=["PERSON"], supported_language=LANGUAGE, name="JuristPerson"
        )

    def load(self) -> None:
        pass

    def analyze(
        self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
    ) -> list[RecognizerResult]:
        if "PERSON" not in entities or nlp_artifacts is None:
            return []
        results = []
        for entity in nlp_artifacts.entities:
            if entity.label_ != "PERSON":
                continue
            start, end = entity.start_char, entity.end_char
            # spaCy takes a possessive "'s" into the name; it stays readable.
            while end > start and not text[end - 1].isalnum():
                end -= 1
            if _looks_like_a_name(text[start:end]) and (
                len(text[start:end].split()) > 1 or _TITLE.search(text[max(0, start - 8) : start])
            ):
                results.append(RecognizerResult("PERSON", start, end, self.SCORE))
        return results


# Lower-case words that may stand inside a name ("Ludwig van Beethoven", "Fatima al-Sayed").
_NAME_PARTICLES = frozenset(
    [
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "di",
        "da",
        "do",
        "dos",
        "das",
        "du",
        "la",
        "le",
        "al",
        "el",
        "bin",
        "ibn",
        "bint",
        "ben",
        "y",
        "e",
    ]
)


# A name of one word counts only after a title: alone, the small model takes too many
# capitalised words for people ("Rhine", "Moon", a sentence's first word).
_TITLE = re.compile(
    r"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Herr|Frau|Mme|Mlle|M|Sr|Sra|Srta|Sig|Sig\.ra|Dott)"
    r"\.?\s+$"
)


def _looks_like_a_name(value: str) -> bool:
    """Whether every word is capitalised or a particle: the English model, shown another
    language, tags phrases such as "Sie wohnt in der" as people."""
    words = value.split()
    return bool(words) and all(
        word[0].isupper() or word.lower() in _NAME_PARTICLES for word in words
    )


# Phone numbers.

# Where phone numbers in national formats are looked for; "+country" numbers are found from
# any of them. Each region costs a pass of the phonenumbers matcher.
PHONE_REGIONS = ("US", "GB", "DE", "FR", "IN", "BR", "JP", "ES", "IT", "AU", "NL", "MX")

# Words that, shortly before a number, make it a phone number, in the languages whose formats
# are looked for. Whole words only: "tel" must not be found in "hotel".
_PHONE_CUE = re.compile(
    r"\b(?:phone|telephone|tel|cell|cellphone|mobile|call|calls|called|calling|sms|text|"
    r"whatsapp|fax|reach|contact|dial|ring|hotline|number|"
    r"telefon|telefonnummer|rufnummer|ruf|handy|mobil|mobilnummer|anrufen|nummer|"
    r"t[ée]l[ée]phone|portable|appelez|appeler|num[ée]ro|joindre|"
    r"tel[ée]fono|m[óo]vil|celular|llame|llamar|telefone|ligue|ligar|contato|contacto|"
    r"cellulare|chiamare|chiami|numero|電話|携帯)\b\.?",
    re.IGNORECASE,
)
_PHONE_CUE_REACH = 40
_CUED_PHONE_SCORE = 0.75
# phonenumbers' matcher finds a candidate only where its pattern, which needs a `\d`, matches
# (vanity numbers such as 1-800-FLOWERS are not matched): a text without one, checked once
# here, spares a matcher per region.
_ANY_DIGIT = re.compile(r"\d")


def phone_recognizer(context: Sequence[str]) -> PhoneRecognizer:
    class CuedPhoneRecognizer(PhoneRecognizer):
        """Presidio's phone recognizer over more regions, with numbers written with a
        "+country" or "(area)" prefix, or after a cue word, scored as phone numbers: order
        and invoice numbers are written neither way."""

        def analyze(
            self, text: str, entities: list[str], nlp_artifacts: NlpArtifacts | None = None
        ) -> list[RecognizerResult]:
            if not _ANY_DIGIT.search(text):
                return []
            # Presidio passes None when there is no NLP engine, despite its annotation.
            results: list[RecognizerResult] = super().analyze(
                text,
                entities,
                nlp_artifacts,  # type: ignore[arg-type]
            )
            for result in results:
                before = text[max(0, result.start - _PHONE_CUE_REACH) : result.start]
                if text[result.start] in "+(" or _PHONE_CUE.search(before):
                    result.score = max(result.score, _CUED_PHONE_SCORE)
            return results

    return CuedPhoneRecognizer(context=list(context), supported_regions=PHONE_REGIONS)


# IPv6: every compressed form, validated by the standard library.

_IPV6 = re.compile(
    r"(?<![\w:.])(?:[0-9A-Fa-f]{1,4}:|::?){1,7}(?::|[0-9A-Fa-f]{1,4}|\d{1,3}(?:\.\d{1,3}){3})"
    r"(?:%[0-9A-Za-z.]+)?(?![\w:])"
)


def _valid_ipv6(value: str) -> bool:
    try:
        ipaddress.IPv6Address(value.split("%", maxsplit=1)[0])
    except ValueError:
        return False
    return True


# Dates of birth: a date after a cue word. Dates without one are ordinary text.

_MONTHS = (
    r"(?:jan(?:uary|vier|uar|eiro)?|feb(?:ruary|ruar)?|f[ée]v(?:rier)?|fevereiro|"
    r"mar(?:ch|s|z|zo|ço)?|m[äa]rz|apr(?:il)?|avr(?:il)?|abr(?:il)?|aprile|"
    r"may|mai|mayo|maio|maggio|jun(?:e|i|io|ho)?|juin|giugno|"
    r"jul(?:y|i|io|ho)?|juil(?:let)?|luglio|aug(?:ust)?|ao[uû]t|ago(?:sto)?|"
    r"sep(?:t|tember|tembre|tiembre|tembro)?|set(?:tembre|embro)?|"
    r"o[ck]t(?:ober|obre|ubre|ubro)?|ott(?:obre)?|nov(?:ember|embre|iembre|embro)?|"
    r"de[cz](?:ember|embre|iembre|embro)?|d[ée]c(?:embre)?|dic(?:embre|iembre)?)\.?"
)
_DATE = (
    r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
    r"|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})\b"
    rf"|\d{{1,2}}(?:st|nd|rd|th|er|º|°)?\.?\s+(?:de\s+)?{_MONTHS}\s*,?\s+(?:de\s+)?\d{{4}}"
    rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    r"|\d{4}年\d{1,2}月\d{1,2}日)"
)
_BIRTH_CUE = (
    r"(?:\bborn\b|\bbirth\s*date\b|\bdate\s+of\s+birth\b|\bd\.?o\.?b\b\.?|\bbirthday\b|"
    r"\bgeb\.|\bgeboren\b|\bgeburtsdatum\b|\bgeburtstag\b|\bn[ée]e?\b|"
    r"\bdate\s+de\s+naissance\b|\bnacid[oa]\b|\bfecha\s+de\s+nacimiento\b|\bnascid[oa]\b|"
    r"\bdata\s+de\s+nascimento\b|\bnat[oa]\s+(?:il|a|nel)\b|\bdata\s+di\s+nascita\b|"
    r"生年月日|生まれ)"
)
_DATE_OF_BIRTH = re.compile(
    rf"{_BIRTH_CUE}[^\n\d]{{0,30}}?(?P<v>{_DATE})", re.IGNORECASE | re.UNICODE
)


# Passport numbers: a cue word, then the first token of 6 to 9 capitals and digits with a
# digit in it.

_PASSPORT = re.compile(
    r"(?i:passport|reisepass|passnummer|pass-?nr\.?|passeport|pasaporte|passaporto|"
    r"passaporte|paspoort|旅券|パスポート)"
    r"[^\n]{0,40}?(?<![A-Za-z0-9])"
    r"(?P<v>(?=[A-Z0-9]{0,8}\d)[A-Z0-9]{6,9}|[A-Z]{1,3}\s\d{6,8})"
    r"(?![A-Za-z0-9])"
)


# National ids jurist checks itself; Presidio's own cover UK, ES, IT, IN, PL, AU, SG, FI, KR.


def _ssn_ok(value: str) -> bool:
    digits = re.sub(r"\D", "", value)
    area, group, serial = digits[:3], digits[3:5], digits[5:]
    return area not in {"000", "666"} and area[0] != "9" and group != "00" and serial != "0000"


_SSN_UNSEPARATED = re.compile(
    r"(?i:\bssn\b|social\s+security(?:\s+(?:number|no\.?|#))?)[^\n\d]{0,20}?(?P<v>\b\d{9}\b)"
)


def _cpf_ok(value: str) -> bool:
    digits = [int(d) for d in re.sub(r"\D", "", value)]
    if len(digits) != 11 or len(set(digits)) == 1:
        return False
    for size in (9, 10):
        total = sum(d * (size + 1 - i) for i, d in enumerate(digits[:size]))
        if (total * 10 % 11) % 10 != digits[size]:
            return False
    return True


_CPF = re.compile(r"(?<![\d.])\d{3}\.\d{3}\.\d{3}-\d{2}(?!\d|\.\d)")
_CPF_CUED = re.compile(r"(?i:\bcpf\b)[^\n\d]{0,20}?(?P<v>\b\d{11}\b)")


def _nir_ok(value: str) -> bool:
    compact = re.sub(r"\s", "", value).upper()
    body, key = compact[:13], compact[13:]
    # Corsica's departments 2A and 2B count as 19 and 18 in the key.
    body = body.replace("2A", "19", 1) if body[5:7] == "2A" else body
    body = body.replace("2B", "18", 1) if body[5:7] == "2B" else body
    return body.isdigit() and key.isdigit() and 97 - int(body) % 97 == int(key)


_NIR = re.compile(
    r"(?<![\dA-Za-z])[12]\s?\d{2}\s?(?:0[1-9]|1[0-2]|[2-9]\d)\s?(?:\d{2}|2[AB])\s?\d{3}\s?\d{3}"
    r"\s?\d{2}(?![\dA-Za-z])"
)


def _steuer_id_ok(value: str) -> bool:
    digits = [int(d) for d in re.sub(r"\D", "", value)]
    if len(digits) != 11 or digits[0] == 0:
        return False
    # ISO 7064 MOD 11,10.
    product = 10
    for digit in digits[:10]:
        total = (digit + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == digits[10]


_STEUER_ID = re.compile(
    r"(?i:steuer-?id(?:entifikationsnummer)?|steuerliche\s+identifikationsnummer|"
    r"identifikationsnummer|steuernummer|idnr\.?|tax\s+id(?:entification)?(?:\s+number)?|tin)"
    r"[^\n\d]{0,20}?(?P<v>\b\d{2}\s?\d{3}\s?\d{3}\s?\d{3}\b)"
)
_DE_ID_CARD = re.compile(
    r"(?i:personalausweis(?:nummer)?|ausweis(?:nummer|-?nr\.?)?|id[- ]card(?:\s+number)?|"
    r"identity\s+card(?:\s+number)?|carte\s+d'identit[ée]|dni|documento\s+de\s+identidad)"
    r"[^\n]{0,25}?(?<![A-Za-z0-9])(?P<v>(?=[A-Z0-9]{0,8}\d)[CFGHJKLMNPRTVWXYZ0-9]{9}\d?)"
    r"(?![A-Za-z0-9])"
)


# Street addresses: a house number and a street type word in the order each country writes
# them, optionally followed by a unit, a city and a postal code. A place name alone is not
# personal data and is left alone.

_UPPER = r"A-ZÀ-ÖØ-ÞĀ-Ž"
_WORD = rf"[{_UPPER}][\w'\u2019.-]*"
_EN_TYPES = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Drive|Dr|Lane|Ln|Court|Ct|Place|Pl|Way|"
    r"Terrace|Ter|Parkway|Pkwy|Highway|Hwy|Circle|Cir|Square|Sq|Close|Crescent|Cres|Gardens|"
    r"Grove|Mews|Row|Hill|Walk|Trail|Plaza|Marg|Nagar)"
)
_US_ZIP = r"\d{5}(?:-\d{4})?"
_UK_POSTCODE = r"[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}"
# A city's words end in a lower-case letter, so a postcode ("SW1A 2AA") is not taken for one.
_CITY_WORD = rf"[{_UPPER}][\w'\u2019-]*[a-zß-öø-ÿ]"
_CITY = (
    rf"{_CITY_WORD}(?:[ -]{_CITY_WORD}){{0,2}}"
    rf"(?:\s(?:am|an\s+der|im|upon|on|sur|en|de|do|da)\s{_CITY_WORD})?"
)
_CA_POSTCODE = r"[A-Z]\d[A-Z]\s?\d[A-Z]\d"
# After a street and a city: a state or province, then a postal code (India's six digits
# before the five of a US ZIP, so the latter does not take a part of the former).
_EN_TAIL = (
    rf"(?:,?\s*[A-Z]{{2,3}}\b)?"
    rf"(?:,?\s+(?:\d{{6}}|{_US_ZIP}|{_UK_POSTCODE}|{_CA_POSTCODE}|\d{{4}})(?![\dA-Za-z]))?"
)
_EN_STREET = (
    rf"(?:(?:Flat|Apt|Apartment|Unit|Suite|House|No\.?)\s*#?\w+,?\s+)?"
    rf"\b\d{{1,6}}[A-Za-z]?(?:-\d{{1,4}})?,?\s+(?:[NSEW]\.?\s+)?"
    rf"(?:(?:{_WORD}|\d+(?:st|nd|rd|th)|of|the)\s+){{1,4}}{_EN_TYPES}\b\.?"
    rf"(?:\s+(?:NW|NE|SW|SE|N|S|E|W)\b)?"
    rf"(?:,?\s+(?:Apt|Apartment|Suite|Ste|Unit|Flat|Floor|Fl)\.?\s*#?\s*\w+)?"
    rf"(?:,\s*{_CITY}{_EN_TAIL}|,?\s+(?:{_UK_POSTCODE}|\d{{6}})(?![\dA-Za-z]))?"
)
_DE_TYPES = r"(?:straße|strasse|str\.|weg|gasse|allee|platz|ring|damm|ufer|chaussee|steig|pfad)"
_DE_STREET = (
    rf"(?:\b[{_UPPER}][\wäöüß-]*{_DE_TYPES}|(?:\b[{_UPPER}][\wäöüß-]+\s)+(?i:{_DE_TYPES}))"
    r"\s+\d{1,4}\s?[a-zA-Z]?(?:\s?[-/]\s?\d{1,4})?\b"
    rf"(?:,?\s*(?:D-)?\d{{5}}\s+{_CITY})?"
)
_FR_STREET = (
    r"\b\d{1,4}(?:\s?(?:bis|ter|[A-Z]))?,?\s+"
    r"(?i:rue|avenue|av\.|boulevard|bd|place|chemin|all[ée]e|impasse|quai|route|cours|square"
    r"|passage|faubourg)\s+"
    rf"(?:(?:de\s+la|de|du|des|la|le|les|l['\u2019]|d['\u2019])\s*)*{_WORD}"
    rf"(?:[\s-]+(?:(?:de\s+la|de|du|des|la|le|les|l['\u2019]|d['\u2019])\s*)*{_WORD})*"
    rf"(?:,?\s*\d{{5}}\s+{_CITY}(?:\s\d{{1,2}}e)?)?"
)
_ROMANCE_STREET = (
    r"\b(?:Calle|C/|Avenida|Avda\.|Plaza|Paseo|Carrer|Via|Viale|Piazza|Corso|Largo|Rua|"
    r"Travessa|Alameda|Praça|Ronda|Camino)\s+"
    rf"(?:(?:de\s+la|de|del|di|della|delle|dei|do|da|dos|das)\s+)*{_WORD}"
    rf"(?:\s+(?:(?:de\s+la|de|del|di|della|delle|dei|do|da|dos|das)\s+)*{_WORD})*"
    r",?\s*(?:n[º°o.]\s*)?\d{1,5}[A-Za-z]?\b"
    r"(?:,\s*\d{1,3}[º°ª]\s*[A-Z0-9]?)?"
    rf"(?:,?\s*(?:\d{{5}}|\d{{5}}-\d{{3}})\s+{_CITY}(?:\s\([A-Z]{{2}}\))?"
    rf"|,\s*{_CITY}\s*[-\u2013]\s*[A-Z]{{2}}(?:,\s*\d{{5}}-\d{{3}})?)?"
)
_JP_STREET = (
    r"(?:〒\s?\d{3}-\d{4}\s*)?[^\s、。,]{1,6}[都道府県][^\s、。,]{1,20}?\d{1,4}(?:[-\u2212\uff0d丁目番号]\d{1,4}){1,3}[号]?"
    r"|\b\d{1,2}-\d{1,2}(?:-\d{1,3})?\s+[A-Z][a-z]+(?:-(?:cho|machi|chome))?,\s*"
    r"[A-Z][a-z]+-(?:ku|shi|cho|machi),\s*[A-Z][a-z]+(?:-(?:to|fu|ken))?(?:\s+\d{3}-\d{4})?"
)
_ADDRESS = re.compile(
    f"{_EN_STREET}|{_DE_STREET}|{_FR_STREET}|{_ROMANCE_STREET}|{_JP_STREET}", re.UNICODE
)


# A name after a greeting, a title or "my name is": found without the NER model, and where
# the small model misreads its context (a JSON string, a letter's first line).
_NAME_WORD = rf"(?:[{_UPPER}][a-zß-öø-ÿ'\u2019-]+|[{_UPPER}]\.)"
_NOT_A_NAME = (
    r"(?!(?:Customer|Customers|Client|Sir|Madam|Team|Support|All|Colleague|Colleagues|"
    r"Friend|Friends|Valued|User|Users|There|Everyone|Reader|Member|Members|Manager|"
    r"Hiring|Applicant|Partner|Partners|Kunde|Kundin|Damen|Herren|Team)\b)"
)
_CUED_NAME = re.compile(
    r"(?i:\b(?:dear|hi|hello|hallo|liebe|lieber|bonjour|cher|ch[èe]re|hola|querid[oa]|ciao|"
    r"caro|cara|ol[áa]|mr|mrs|ms|miss|mx|dr|prof|herr|frau|mme|mlle|monsieur|madame|"
    r"se[ñn]or|se[ñn]ora|sr|sra|signor|signora|sig|dott|"
    r"my\s+name\s+is|name\s*:|named|je\s+m'appelle|ich\s+hei(?:ß|ss)e|me\s+llamo|"
    r"mi\s+chiamo|meu\s+nome\s+[ée]|regards,|sincerely,|signed)\.?,?\s+)"
    rf"{_NOT_A_NAME}(?P<v>{_NAME_WORD}(?:[ \t]+(?:(?:van|von|de|der|den|da|di|del|dos|al|bin)"
    rf"[ \t]+)?{_NOT_A_NAME}{_NAME_WORD}){{0,3}})"
)


def rule_recognizers() -> list[EntityRecognizer]:
    return [
        RuleRecognizer("JuristIpv6", [Rule("IP_ADDRESS", _IPV6, 0.9, _valid_ipv6)]),
        RuleRecognizer("JuristDateOfBirth", [Rule("DATE_OF_BIRTH", _DATE_OF_BIRTH, 0.85)]),
        RuleRecognizer("JuristPassport", [Rule("PASSPORT", _PASSPORT, 0.8)]),
        RuleRecognizer(
            "JuristNationalId",
            [
                Rule("US_SSN", _SSN_UNSEPARATED, 0.8, _ssn_ok),
                Rule("BR_CPF", _CPF, 0.85, _cpf_ok),
                Rule("BR_CPF", _CPF_CUED, 0.85, _cpf_ok),
                Rule("FR_NIR", _NIR, 0.85, _nir_ok),
                Rule("DE_TAX_ID", _STEUER_ID, 0.8, _steuer_id_ok),
                Rule("DE_ID_CARD", _DE_ID_CARD, 0.7),
            ],
        ),
        RuleRecognizer("JuristStreetAddress", [Rule("STREET_ADDRESS", _ADDRESS, 0.7)]),
        RuleRecognizer("JuristCuedName", [Rule("PERSON", _CUED_NAME, 0.75)]),
    ]
