"""Judge specs: a judge, a jury or a cascade described as data (JSON or YAML), and built.

A spec is a tree of objects, each with a `type`: leaf judges (`schema`, `json`, `contains`,
`regex`, `length`, `criterion`, `criteria`, `rubric`, `pairwise`, `hallucination`,
`faithfulness`, `answer_relevance`, `context_relevance`, `coverage`, `focus`,
`sentences`, and of an agent's run `tool_call`, `tool_arguments`, `trajectory`),
composition (`all_of`, `any_of`, `not`) and voting (`jury`, `cascade`).
Every object refuses fields it does not know.

```yaml
type: cascade
tiers:
  - name: shape                   # cheap checks first: any failure rejects at once
    policy: reject_on_any_fail
    judge:
      type: all_of
      judges: [{type: json}, {type: length, max_words: 200}]
  - name: panel                   # a jury settles what the cheap tier let through
    policy: final
    strategy: {type: majority, tie: fail}
    judges:
      - {type: criterion, name: refund, criterion: The answer states the refund window}
      - {type: rubric, rubric: answer-quality, criteria: [correctness]}
      - {type: contains, keywords: [refund, days], mode: all}
```

A spec never names a model and never reads a file: whoever builds it decides which model
the model-backed judges ask (`judge_from_spec(spec, model=...)`), and rubrics are library
ids or inline objects, never paths. Malformed specs raise SpecError (also named
JudgeSpecError) naming the place in the spec (`tiers[1].judges[0].strategy.type`) and the problem.

Each `type` is an entry of `registry`, its fields made from the constructor's signature
(`register` adds one). The same grammar reads the short forms a command line takes
(`rubric:ID`, `criterion:TEXT`, a spec file's path, `METHOD[:OPTION]`): see
`judge_shorthand` and `ShorthandTable`.
"""

from jurist.specs._as_judge import JudgeOrSpec, as_judge
from jurist.specs._errors import JudgeSpecError, SpecError, SpecProblem
from jurist.specs._fields import MAX_CRITERIA, MAX_ITEMS_EXTRACTED
from jurist.specs._load import (
    MAX_SPEC_DEPTH,
    MAX_SPEC_JUDGES,
    JudgeSpec,
    judge_from_spec,
    judge_spec_schema,
    load_judge_spec,
    parse_judge_spec,
)
from jurist.specs._registry import Entry, Registry, register, registry
from jurist.specs._shorthand import (
    SPEC_SUFFIXES,
    Shorthand,
    ShorthandTable,
    judge_shorthand,
    split_shorthand,
)

__all__ = [
    "MAX_CRITERIA",
    "MAX_ITEMS_EXTRACTED",
    "MAX_SPEC_DEPTH",
    "MAX_SPEC_JUDGES",
    "SPEC_SUFFIXES",
    "Entry",
    "JudgeOrSpec",
    "JudgeSpec",
    "JudgeSpecError",
    "Registry",
    "Shorthand",
    "ShorthandTable",
    "SpecError",
    "SpecProblem",
    "as_judge",
    "judge_from_spec",
    "judge_shorthand",
    "judge_spec_schema",
    "load_judge_spec",
    "parse_judge_spec",
    "register",
    "registry",
    "split_shorthand",
]
