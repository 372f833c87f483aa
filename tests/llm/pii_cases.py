"""A labelled set of personal data in the formats of several countries, for the redactor's
recall, and ordinary sentences it must leave alone, for its precision.

Every value is invented here; ids with a check digit get a valid one, computed below, as a
real id would have. Each case is a sentence with one planted value: it counts as found only
when every letter and digit of the value lies inside what the redactor replaced.
"""

import itertools
from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    kind: str
    country: str
    value: str
    text: str

    @property
    def start(self) -> int:
        return self.text.index(self.value)


def _luhn_digit(body: str) -> str:
    total = 0
    for index, char in enumerate(reversed(body)):
        digit = int(char)
        if index % 2 == 0:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return str(-total % 10)


def _card(prefix: str, length: int, groups: tuple[int, ...]) -> str:
    body = (prefix + "4825910376351902")[: length - 1]
    digits = body + _luhn_digit(body)
    parts, position = [], 0
    for size in groups:
        parts.append(digits[position : position + size])
        position += size
    return " ".join(parts)


def _iban(country: str, bban: str) -> str:
    numeric = "".join(str(int(char, 36)) for char in bban + country + "00")
    check = 98 - int(numeric) % 97
    compact = f"{country}{check:02d}{bban}"
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


def _cpf(body: str) -> str:
    digits = [int(d) for d in body]
    for size in (9, 10):
        total = sum(d * (size + 1 - i) for i, d in enumerate(digits[:size]))
        digits.append(total * 10 % 11 % 10)
    text = "".join(map(str, digits))
    return f"{text[:3]}.{text[3:6]}.{text[6:9]}-{text[9:]}"


def _nir(body: str) -> str:
    key = 97 - int(body) % 97
    return f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]} {key:02d}"


def _steuer_id(body: str) -> str:
    product = 10
    for char in body:
        total = (int(char) + product) % 10 or 10
        product = total * 2 % 11
    return body + str((11 - product) % 10)


_VERHOEFF_D = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_VERHOEFF_P = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
_VERHOEFF_INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def _aadhaar(body: str) -> str:
    check = 0
    for index, char in enumerate(reversed(body + "0")):
        check = _VERHOEFF_D[check][_VERHOEFF_P[index % 8][int(char)]]
    digits = body + str(_VERHOEFF_INV[check])
    return f"{digits[:4]} {digits[4:8]} {digits[8:]}"


def _dni(number: str) -> str:
    return number + "TRWAGMYFPDXBNJZSQVHLCKE"[int(number) % 23]


def _nie(prefix: str, number: str) -> str:
    return prefix + _dni(str("XYZ".index(prefix)) + number)[-8:]


_FISCAL_ODD = [
    1,
    0,
    5,
    7,
    9,
    13,
    15,
    17,
    19,
    21,
    2,
    4,
    18,
    20,
    11,
    3,
    6,
    8,
    12,
    14,
    16,
    10,
    22,
    25,
    24,
    23,
]


def _codice_fiscale(body: str) -> str:
    total = 0
    for index, char in enumerate(body):
        value = int(char) if char.isdigit() else ord(char) - ord("A")
        total += _FISCAL_ODD[value] if index % 2 == 0 else value
    return body + chr(ord("A") + total % 26)


def _cases(kind: str, templates: list[str], values: list[tuple[str, str]]) -> list[Case]:
    """Each value in a sentence, templates taken in turn."""
    return [
        Case(kind, country, value, template.format(value))
        for (country, value), template in zip(values, itertools.cycle(templates), strict=False)
    ]


PHONE = _cases(
    "phone",
    [
        "Call me on {} if the parcel does not arrive.",
        "My mobile is {}, text me after six.",
        "Phone: {}",
        "You can reach the landlord at {} in the evening.",
        "For questions, dial {} and ask for the billing team.",
        "Her number is {} (office hours only).",
    ],
    [
        ("US", "415-555-0132"),
        ("US", "(212) 555-0187"),
        ("US", "+1 646 555 0199"),
        ("US", "650.555.0143"),
        ("UK", "020 7946 0958"),
        ("UK", "+44 20 7946 0321"),
        ("UK", "07700 900461"),
        ("UK", "+44 7700 900123"),
        ("DE", "030 1234567"),
        ("DE", "+49 30 12345678"),
        ("DE", "0171 2345678"),
        ("DE", "089 12345678"),
        ("FR", "01 42 68 53 00"),
        ("FR", "+33 1 42 68 53 00"),
        ("FR", "06 12 34 56 78"),
        ("IN", "+91 98765 43210"),
        ("IN", "098765 43210"),
        ("IN", "+91 22 2778 1234"),
        ("BR", "(11) 91234-5678"),
        ("BR", "+55 11 91234-5678"),
        ("BR", "+55 21 2345-6789"),
        ("JP", "03-1234-5678"),
        ("JP", "+81 3-1234-5678"),
        ("JP", "090-1234-5678"),
        ("ES", "+34 612 34 56 78"),
        ("ES", "912 34 56 78"),
        ("IT", "+39 06 1234 5678"),
        ("IT", "347 123 4567"),
        ("NL", "+31 20 123 4567"),
        ("AU", "+61 2 9876 5432"),
        ("AU", "0412 345 678"),
        ("MX", "+52 55 1234 5678"),
    ],
)

NATIONAL_ID = [
    Case("national_id", country, value, template.format(label=label, value=value))
    for (country, label, value), template in zip(
        [
            ("US", "SSN", "536-22-1234"),
            ("US", "social security number", "536228437"),
            ("US", "SSN", "219 09 9999"),
            ("US", "SSN", "078051120"),
            ("UK", "National Insurance number", "QQ 12 34 56 C"),
            ("UK", "NINO", "AB123456D"),
            ("UK", "NI number", "JG 10 37 56 B"),
            ("DE", "Steuer-ID", _steuer_id("8609574271")),
            ("DE", "steuerliche Identifikationsnummer", _steuer_id("4715268309")),
            ("DE", "tax id", _steuer_id("2653104789")),
            ("DE", "Personalausweis", "L01X00T47"),
            ("DE", "ID card number", "T22000129"),
            ("FR", "numéro de sécurité sociale", _nir("1850578006084")),
            ("FR", "NIR", _nir("2920275112233")),
            ("FR", "INSEE number", _nir("1690159350456")),
            ("IN", "Aadhaar", _aadhaar("23456789012")),
            ("IN", "Aadhaar number", _aadhaar("49870123456")),
            ("IN", "PAN", "ABCPE1234F"),
            ("IN", "PAN card", "BNZPM2501F"),
            ("BR", "CPF", _cpf("123456789")),
            ("BR", "CPF", _cpf("529982247")),
            ("BR", "CPF", _cpf("987654321").replace(".", "").replace("-", "")),
            ("ES", "DNI", _dni("12345678")),
            ("ES", "DNI", _dni("48291735")),
            ("ES", "NIE", _nie("X", "1234567")),
            ("ES", "NIE", _nie("Y", "2345678")),
            ("IT", "codice fiscale", _codice_fiscale("RSSMRA85T10A562")),
            ("IT", "codice fiscale", _codice_fiscale("BNCLRA90A41H501")),
            ("PL", "PESEL", "44051401359"),
            ("AU", "TFN", "123 456 782"),
        ],
        itertools.cycle(
            [
                "For the background check, his {label} is {value}.",
                "Please verify {label} {value} against the register.",
                "The form lists {label}: {value}.",
            ]
        ),
        strict=False,
    )
]

DATE_OF_BIRTH = _cases(
    "date_of_birth",
    [
        "The patient was born on {} in a small town.",
        "DOB: {}",
        "Date of birth: {}, nationality: Canadian.",
        "His birthday is {} and he wants a cake.",
        "Name: K. Weber, geb. {}, wohnhaft in Hamburg.",
        "Elle est née le {} à Lyon.",
        "Fecha de nacimiento: {}.",
        "Nato il {} a Torino.",
        "Data de nascimento: {}.",
        "Applicant (D.O.B. {}) has applied twice.",
    ],
    [
        ("US", "03/14/1987"),
        ("US", "1985-03-02"),
        ("CA", "July 4, 1979"),
        ("UK", "21st March 1992"),
        ("DE", "17.05.1990"),
        ("FR", "3 février 1988"),
        ("ES", "12 de mayo de 1975"),
        ("IT", "24/12/1969"),
        ("BR", "05/11/2001"),
        ("US", "12/25/1960"),
        ("US", "May 17, 1990"),
        ("US", "1990-05-17"),
        ("UK", "2 Jan 1958"),
        ("UK", "14/02/1971"),
        ("DE", "3. Oktober 1983"),
        ("FR", "14 juillet 1995"),
        ("ES", "30/06/1982"),
        ("IT", "1 aprile 1977"),
        ("BR", "9 de setembro de 1999"),
        ("US", "Nov 3, 1966"),
    ],
)

PASSPORT = _cases(
    "passport",
    [
        "My passport number is {} and it expires next year.",
        "Passport No. {}",
        "Reisepass: {}",
        "Numéro de passeport : {}",
        "Pasaporte {} emitido en Madrid.",
        "Please copy passport {} into the booking.",
    ],
    [
        ("US", "A12345678"),
        ("US", "567890123"),
        ("UK", "123456789"),
        ("DE", "C01X00T47"),
        ("FR", "18AB12345"),
        ("ES", "PAA123456"),
        ("IT", "YA1234567"),
        ("IN", "J8369854"),
        ("BR", "FP123456"),
        ("JP", "TK1234567"),
        ("US", "X98765432"),
        ("UK", "502135326"),
        ("DE", "C4J6R9ZK1"),
        ("FR", "09KA56789"),
        ("CA", "AB123456"),
        ("AU", "PA1234567"),
        ("NL", "NXC1234P5"),
        ("IN", "M1234567"),
    ],
)

IPV6 = _cases(
    "ipv6",
    [
        "The request came from {} at noon.",
        "Blocked host {} after ten failed logins.",
        "Client address: {}",
        "Her router answers on {} inside the home network.",
    ],
    [
        ("", "2001:0db8:85a3:0000:0000:8a2e:0370:7334"),
        ("", "2001:db8:85a3::8a2e:370:7334"),
        ("", "2001:db8::1"),
        ("", "fe80::1ff:fe23:4567:890a"),
        ("", "::ffff:192.0.2.128"),
        ("", "2a02:8108:1c40:2e00:d4a1:3bff:fe5c:91e2"),
        ("", "2600:1700:3a0:b4e0::2c"),
        ("", "fd12:3456:789a:1::1"),
        ("", "2001:db8:0:0:1:0:0:1"),
        ("", "2001:db8::ff00:42:8329"),
        ("", "2406:da18:77:a500:4c3f:2b1e:9a0c:11d7"),
        ("", "2804:14c:65d7:8a00::1001"),
    ],
)

ADDRESS = _cases(
    "address",
    [
        "Please ship the replacement to {}.",
        "She moved to {} last spring.",
        "Address: {}",
        "The invoice was sent to {} by mistake.",
    ],
    [
        ("US", "1600 Pennsylvania Avenue NW, Washington, DC 20500"),
        ("US", "350 Fifth Avenue, New York, NY 10118"),
        ("US", "742 Evergreen Terrace, Springfield, OR 97477"),
        ("US", "1234 Elm St, Apt 5B, Austin, TX 78701"),
        ("US", "88 Colin P Kelly Jr Street, San Francisco, CA 94107"),
        ("UK", "10 Downing Street, London SW1A 2AA"),
        ("UK", "221B Baker Street, London NW1 6XE"),
        ("UK", "14 Queen's Road, Brighton BN1 3XE"),
        ("UK", "Flat 3, 27 Victoria Crescent, Leeds LS6 1AH"),
        ("DE", "Musterstraße 12, 10115 Berlin"),
        ("DE", "Berliner Straße 45a, 60311 Frankfurt am Main"),
        ("DE", "Lindenweg 7, 80331 München"),
        ("DE", "Goetheplatz 3, 04109 Leipzig"),
        ("FR", "12 rue de Rivoli, 75001 Paris"),
        ("FR", "8 avenue des Champs-Élysées, 75008 Paris"),
        ("FR", "25 boulevard Victor Hugo, 06000 Nice"),
        ("FR", "3 place Bellecour, 69002 Lyon"),
        ("ES", "Calle Mayor 10, 28013 Madrid"),
        ("ES", "Avenida de la Constitución 21, 41004 Sevilla"),
        ("IT", "Via Roma 15, 00184 Roma"),
        ("IT", "Piazza del Duomo 3, 20122 Milano"),
        ("BR", "Rua Augusta, 1500, São Paulo - SP, 01304-001"),
        ("BR", "Avenida Paulista 1578, 01310-200 São Paulo"),
        ("IN", "Flat 4B, 21 MG Road, Bengaluru 560001"),
        ("IN", "42 Nehru Marg, New Delhi 110001"),
        ("JP", "1-1 Chiyoda, Chiyoda-ku, Tokyo 100-8111"),
        ("JP", "〒100-0005 東京都千代田区丸の内1-9-1"),
        ("CA", "24 Sussex Drive, Ottawa, ON K1M 1M4"),
        ("AU", "12 George Street, Sydney NSW 2000"),
    ],
)

NAME = _cases(
    "name",
    [
        "Please forward the contract to {} before Friday.",
        "{} called yesterday about the refund.",
        "The complaint was filed by {} on behalf of her mother.",
        "I spoke with {} and she agreed to the new date.",
        "Thanks, {}, for the quick reply.",
    ],
    [
        ("US", "John Smith"),
        ("US", "Emily Johnson"),
        ("US", "Michael Rodriguez"),
        ("UK", "Oliver Bennett"),
        ("UK", "Charlotte Hughes"),
        ("DE", "Maria Schmidt"),
        ("DE", "Jürgen Müller"),
        ("DE", "Katharina Becker"),
        ("FR", "Camille Dubois"),
        ("FR", "Jean-Pierre Martin"),
        ("ES", "Lucía Fernández"),
        ("ES", "Javier García López"),
        ("IT", "Giulia Romano"),
        ("IT", "Marco Bianchi"),
        ("IN", "Priya Sharma"),
        ("IN", "Rahul Verma"),
        ("IN", "Ananya Iyer"),
        ("BR", "João Silva"),
        ("BR", "Ana Beatriz Costa"),
        ("JP", "Hiroshi Tanaka"),
        ("JP", "Yuki Sato"),
        ("CN", "Li Wei"),
        ("CN", "Zhang Min"),
        ("NG", "Chinedu Okafor"),
        ("NG", "Olusegun Adeyemi"),
        ("EG", "Fatima Al-Sayed"),
        ("TR", "Mehmet Yılmaz"),  # noqa: RUF001 -- a Turkish name
        ("PL", "Agnieszka Kowalska"),
        ("NL", "Pieter de Vries"),
        ("SE", "Lars Andersson"),
    ],
)

EMAIL = _cases(
    "email",
    [
        "Send the draft to {} please.",
        "Contact: {}",
        "She wrote from {} twice this week.",
    ],
    [
        ("US", "john.smith@example.com"),
        ("DE", "maria.schmidt@beispiel.de"),
        ("FR", "camille.dubois+factures@exemple.fr"),
        ("UK", "o.bennett@mail.example.co.uk"),
        ("IN", "priya_sharma91@example.in"),
        ("BR", "joao.silva@exemplo.com.br"),
        ("JP", "tanaka-h@example.jp"),
        ("ES", "lucia.fernandez@ejemplo.es"),
        ("IT", "giulia.romano@esempio.it"),
        ("US", "support-team@sub.example.org"),
    ],
)

CARD = _cases(
    "card",
    [
        "Charge it to card {} please.",
        "Card number: {}",
        "My Visa {} was declined.",
    ],
    [
        ("", _card("4", 16, (4, 4, 4, 4))),
        ("", _card("5", 16, (4, 4, 4, 4))),
        ("", _card("37", 15, (4, 6, 5))),
        ("", _card("6011", 16, (4, 4, 4, 4))),
        ("", _card("4", 16, (16,))),
        ("", _card("52", 16, (4, 4, 4, 4)).replace(" ", "-")),
        ("", _card("35", 16, (4, 4, 4, 4))),
        ("", _card("2221", 16, (4, 4, 4, 4))),
    ],
)

IBAN = _cases(
    "iban",
    [
        "Please transfer the deposit to IBAN {}.",
        "Bank account: {}",
        "Refunds go to {} within five days.",
    ],
    [
        ("DE", _iban("DE", "370400440532013000")),
        ("GB", _iban("GB", "NWBK60161331926819")),
        ("FR", _iban("FR", "20041010050500013M02606")),
        ("ES", _iban("ES", "21000418450200051332")),
        ("IT", _iban("IT", "X0542811101000000123456")),
        ("NL", _iban("NL", "ABNA0417164300")),
        ("BR", _iban("BR", "00360305000010009795493P1")),
        ("CH", _iban("CH", "00762011623852957")),
        ("AT", _iban("AT", "1904300234573201")),
        ("BE", _iban("BE", "539007547034")),
    ],
)

IP = _cases(
    "ip",
    [
        "The login came from {} at 3 am.",
        "Server IP: {}",
        "Block {} on the firewall.",
    ],
    [
        ("", "192.168.1.20"),
        ("", "10.0.0.1"),
        ("", "203.0.113.45"),
        ("", "172.16.254.1"),
        ("", "8.8.4.4"),
        ("", "198.51.100.7"),
    ],
)

CASES: dict[str, list[Case]] = {
    "phone": PHONE,
    "national_id": NATIONAL_ID,
    "date_of_birth": DATE_OF_BIRTH,
    "passport": PASSPORT,
    "ipv6": IPV6,
    "address": ADDRESS,
    "name": NAME,
    "email": EMAIL,
    "card": CARD,
    "iban": IBAN,
    "ip": IP,
}

# Ordinary sentences a judge must read as they are: numbers, dates, versions, prices, places
# and public landmarks are not personal data.
CLEAN = [
    "The Eiffel Tower was finished in 1889 and cost 7,799,401 francs.",
    "Python 3.11.7 scored 0.85 on 12 of 20 tasks at 12:30 on 2024-05-01.",
    "Invoice 2024-000123 covers order 4415550132 for 3 items.",
    "Paris is large, and Berlin has more bridges than Venice.",
    "The meeting moved from 14 March 2024 to 21 March 2024.",
    "Version 2.4.1 fixed 17 bugs; version 2.5.0 ships on 2025-01-15.",
    "The jacket costs $129.99, or €119 in the Munich store.",
    "Order #58213 was shipped on 03/14/2024 with 2 boxes.",
    "The Berlin Wall fell on 9 November 1989.",
    "Tokyo had 37 million inhabitants in 2020, São Paulo about 22 million.",
    "The model answered 42 of 50 questions correctly (84%).",
    "Run the tests with pytest -k redaction and expect 120 passed.",
    "Mount Everest is 8,849 metres high.",
    "The train leaves platform 9 at 10:45 and arrives at 13:20.",
    "The ISO 8601 date 2023-10-05 is a Thursday.",
    "Revenue grew 12.5% year over year to 3.2 billion dollars.",
    "Chapter 7 covers the French Revolution of 1789.",
    "The recipe needs 250 g of flour, 3 eggs and 500 ml of milk.",
    "Use port 8080 for the API and 5432 for the database.",
    "The hash starts with 9f86d081884c7d65 and the build number is 10452.",
    "The summit in Geneva lasted 3 days in June 2019.",
    "The report compares Germany, France and Brazil from 2010 to 2020.",
    "Error code 0x80070005 means access denied.",
    "The river Rhine is 1,230 kilometres long.",
    "Grade 10 students read 5 novels per term.",
    "The EU has 27 member states since 2020.",
    "Build 2024.11.3 replaced build 2024.10.28.",
    "Set timeout to 30 seconds and retries to 3.",
    "The summary is accurate and cites the source twice.",
    "The answer lists three causes of inflation and one remedy.",
    "Rome was not built in a day.",
    "The stadium holds 81,365 people.",
    "Section 4.2.1 of the standard describes the handshake.",
    "The lecture on 12/05/2023 covered sorting algorithms.",
    "Apollo 11 landed on the Moon on July 20, 1969.",
    "The bill passed 312 to 118 in the House.",
    "In 1998 the company had 40 employees in London and Madrid.",
    "The temperature dropped to -12 °C overnight in Oslo.",
    "A 2 TB disk costs about 80 euros.",
    "The response mentions Amazon and Google but no people.",
]
