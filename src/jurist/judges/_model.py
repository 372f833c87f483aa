"""ModelJudge: a prompt template, a model and a classifier make a judge."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jurist.core import BaseJudge, Context, JudgeKind, Judgment, Name
from jurist.judges._ask import Answer, CallPolicy, ModelRef, ask
from jurist.judges._reading import Classifier, Reading
from jurist.llm import Model
from jurist.prompts import Prompt, PromptContract, PromptTemplate


class ModelJudge(BaseJudge):
    """Render `template` against the context, ask `model`, read the answer with `classifier`.

    A judge of your own is a configuration of this one: a template and a classifier (see
    docs/architecture.md). jurist's yes/no judges (answer and passage relevance, a
    statement's focus) are configurations of the criterion judge's one asker instead, since
    they share its report and its reading of P(yes).

    The judgment carries the model's usage, and in metadata the rendered prompt's sha256,
    the template's name, the model and its parameters, and how the answer was read. A model
    failure is ERROR with the model error's kind as cause; an unreadable answer is ERROR with
    cause "unparseable".
    """

    kind = JudgeKind.MODEL

    def __init__(
        self,
        model: Model | str | None,
        template: PromptTemplate | str | Path,
        classifier: Classifier,
        *,
        name: Name | None = None,
        description: str = "",
        variables: Mapping[str, Any] | None = None,
        system: PromptTemplate | str | Path | None = "system",
        max_tokens: int = 512,
        temperature: float | None = None,
        policy: CallPolicy | None = None,
    ) -> None:
        super().__init__(name, description)
        self.model = ModelRef(model)
        self.template = PromptTemplate.of(template)
        self.system = PromptTemplate.of(system) if system is not None else None
        self.classifier = classifier
        self.variables = dict(variables or {})
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.policy = (policy or CallPolicy.from_settings()).but(
            max_tokens=max_tokens, temperature=temperature
        )

    @property
    def contract(self) -> PromptContract[Reading]:
        """The template, the classifier's schema, and the classifier as reader."""
        prompt = Prompt(self.template, self.classifier.json_schema)
        return prompt.reading(self.classifier.read, logprobs=self.classifier.wants_logprobs)

    async def judge(self, ctx: Context) -> Judgment:
        answer = await ask(
            self.model,
            self.contract,
            ctx,
            policy=self.policy,
            judge=self.name,
            variables=self.variables,
            system=self.system if self.system is not None else None,
        )
        if isinstance(answer, Judgment):
            return answer
        return self.decide(answer)

    def decide(self, answer: Answer[Reading]) -> Judgment:
        """The judgment a reading makes, with the call recorded in its metadata."""
        reading = answer.value
        metadata = {
            **answer.metadata(self.name),
            "method": reading.method,
            **dict(reading.details),
        }
        return Judgment(
            reading.status,
            reading.score,
            reading.reasoning,
            confidence=reading.confidence,
            usage=answer.usage,
            metadata=metadata,
        )
