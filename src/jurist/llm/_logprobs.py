"""Reading a decision off token probabilities.

Small models state a verdict badly but rank its alternatives well: the probability of "yes"
against "no" at the answer's token separates right from wrong answers where the sampled word
does not. Under a JSON-schema grammar the top alternatives still show the unconstrained
distribution, so the probabilities are renormalised over the allowed labels.
"""

import math
import re
from collections.abc import Sequence

from jurist.llm._types import TokenLogprob


def _norm(token: str) -> str:
    return token.strip().strip('"').lower()


def label_probabilities(
    logprobs: Sequence[TokenLogprob] | None, labels: Sequence[str]
) -> dict[str, float] | None:
    """P(label) for each label, renormalised over the labels, at the first generated token
    that is one of them (case and surrounding spaces and quotes ignored).

    Several tokens may spell one label ("Yes", " yes"): their probabilities add up. None when
    no generated token is a label, or the labels got no probability at all.
    """
    wanted = {_norm(label): label for label in labels}
    if not logprobs or not wanted:
        return None
    for token in logprobs:
        if _norm(token.token) not in wanted:
            continue
        mass = dict.fromkeys(labels, 0.0)
        alternatives = token.top or ()
        seen = {alt.token for alt in alternatives}
        pairs = [(alt.token, alt.logprob) for alt in alternatives]
        if token.token not in seen:
            pairs.append((token.token, token.logprob))
        for text, logprob in pairs:
            label = wanted.get(_norm(text))
            if label is not None:
                mass[label] += math.exp(logprob)
        total = sum(mass.values())
        if total <= 0.0:
            return None
        return {label: value / total for label, value in mass.items()}
    return None


def _mass_at(token: TokenLogprob, labels: Sequence[str]) -> dict[str, float] | None:
    """P(label) at one token position, renormalised over the labels.

    A token counts for a label when it spells the label or the start of it ("NE" for
    "NEEDS_REFINEMENT"), provided no other label starts the same way.
    """
    normalised = {label: _norm(label) for label in labels}

    def owner(text: str) -> str | None:
        piece = _norm(text)
        if not piece:
            return None
        exact = [label for label, norm in normalised.items() if norm == piece]
        if exact:
            return exact[0]
        starts = [label for label, norm in normalised.items() if norm.startswith(piece)]
        return starts[0] if len(starts) == 1 else None

    mass = dict.fromkeys(labels, 0.0)
    pairs = [(alt.token, alt.logprob) for alt in token.top or ()]
    if token.token not in {text for text, _ in pairs}:
        pairs.append((token.token, token.logprob))
    for text, logprob in pairs:
        label = owner(text)
        if label is not None:
            mass[label] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0.0:
        return None
    return {label: value / total for label, value in mass.items()}


def field_probabilities(
    logprobs: Sequence[TokenLogprob] | None, field: str, labels: Sequence[str]
) -> list[dict[str, float] | None]:
    """P(label) for the value of every occurrence of JSON key `field` in a generated answer,
    in order of occurrence, renormalised over the labels.

    The position read is the first token after `"field":` (and an opening quote) that is
    more than spaces and quotes. A reasoning text written before the field never counts, so
    a "4" inside the reasoning is not taken for the score. An occurrence whose value token
    gives the labels no probability is None.
    """
    if not logprobs:
        return []
    key = re.compile(r'"' + re.escape(field) + r'"\s*:\s*"?\s*$')
    found: list[dict[str, float] | None] = []
    text = ""
    awaiting = False
    for token in logprobs:
        if awaiting and _norm(token.token):
            found.append(_mass_at(token, labels))
            awaiting = False
        text += token.token
        # The key can only end here when the text, less trailing spaces and a quote, ends
        # in a colon: checked first, so the pattern is not searched through a long reasoning
        # text after each of its tokens.
        if not awaiting and _ends_in_colon(text) and key.search(text):
            awaiting = True
            # A key match is consumed: what follows belongs to the next occurrence.
            text = ""
    return found


def _ends_in_colon(text: str) -> bool:
    # `\s` of a str pattern is what str.isspace() calls space, which rstrip() strips.
    return text.rstrip().rstrip('"').rstrip().endswith(":")
