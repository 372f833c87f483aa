"""The cases a prompt is improved on: what the model under test is given, split once into
the cases the rewriter sees and the held-back cases a change is accepted on."""

import asyncio
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from jurist.core import Cause, Judgment, Usage
from jurist.data import DatasetError, read_rows
from jurist.judges import CallPolicy, Failure, ask
from jurist.llm import Model
from jurist.prompts import Prompt, PromptTemplate, RenderedPrompt


class Case(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    id: str = Field(min_length=1)
    input: str
    reference: str | None = None

    @field_validator("input")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("blank: give the text the model under test is sent")
        return value


def load_cases(path: str | Path) -> list[Case]:
    """A file of cases (`id`, `input`, optional `reference`), JSON Lines unless its suffix
    names another format the dataset reader knows; an id defaults to the line number.
    DatasetError naming the file, the line and the field."""
    rows = read_rows(path, default_format="jsonl")
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for row in rows.rows:
        data = {"id": str(row.line), **row.check(rows.source)}
        data["id"] = str(data["id"])
        try:
            case = Case.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "case"
            raise DatasetError(rows.source, first["msg"], line=row.line, field=field) from exc
        if case.id in seen:
            raise DatasetError(
                rows.source,
                f"{case.id!r} is already used on line {seen[case.id]}",
                line=row.line,
                field="id",
            )
        seen[case.id] = row.line
        cases.append(case)
    if len(cases) < 2:
        raise DatasetError(
            rows.source,
            f"{len(cases)} case(s); at least 2 are needed (some to rewrite on, some "
            "held back to accept on)",
        )
    return cases


def split_cases(cases: Sequence[Case], holdout: float = 0.5) -> tuple[list[Case], list[Case]]:
    """(cases the rewriter sees, held-back cases). The split depends only on the ids (a
    hash orders them), so a resumed cycle and a rerun hold back the same cases; each side
    gets at least one."""
    if not 0.0 < holdout < 1.0:
        raise ValueError(f"holdout must lie strictly between 0 and 1, got {holdout}")
    if len(cases) < 2:
        raise ValueError(f"cases: {len(cases)} given; at least 2 are needed")
    ordered = sorted(cases, key=lambda c: hashlib.sha256(c.id.encode()).hexdigest())
    held = min(len(ordered) - 1, max(1, round(len(ordered) * holdout)))
    return ordered[held:], ordered[:held]


@dataclass(frozen=True)
class TargetOutput:
    """What the model under test answered to one case under one prompt (or why it did not)."""

    case_id: str
    output: str
    usage: Usage
    error: str | None = None


async def run_prompt(
    prompt: str,
    cases: Sequence[Case],
    model: Model,
    *,
    max_tokens: int = 300,
    concurrency: int = 4,
    policy: CallPolicy | None = None,
) -> list[TargetOutput]:
    """The model under test answers every case with `prompt` as its system prompt. A failed
    call is kept as an output with its error (and scores nothing), never dropped.

    `policy` defaults to the reproducible call (temperature 0, a seed), not the judges'
    settings: the model under test answers as the prompt makes it, the same on every run."""
    gate = asyncio.Semaphore(concurrency)
    asked = Prompt(PromptTemplate.named("autonomy_case")).reading(lambda response: response.text)
    # The prompt under improvement reaches the model exactly as written: it is what the
    # cycle measures, so no template may trim or reshape it.
    system = RenderedPrompt(prompt, "autonomy_case_system")
    called = (policy or CallPolicy(logprobs=False)).but(max_tokens=max_tokens)

    async def one(case: Case) -> TargetOutput:
        async with gate:
            got = await ask(
                model,
                asked,
                policy=called,
                judge="target",
                variables={"input": case.input},
                system=system,
            )
        if isinstance(got, Judgment):
            failure = Failure.of(got)
            error = failure.model_error()
            if failure.cause is Cause.BUDGET and error is not None:
                raise error  # the cycle halts on it; an answer cannot
            return TargetOutput(case.id, "", Usage(), f"{failure.cause.value}: {failure.error}")
        return TargetOutput(case.id, got.value, got.usage)

    return list(await asyncio.gather(*(one(case) for case in cases)))
