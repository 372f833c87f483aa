"""Reading a decision off token probabilities.

Small models state a verdict badly but rank its alternatives well: the probability of "yes"
against "no" at the answer's token separates right from wrong answers where the sampled word
does not. Under a JSON-schema grammar the top alternatives still show the unconstrained
distribution, so the probabilities are renormalised over the allowed labels.
"""

import math
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
