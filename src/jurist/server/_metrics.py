"""Prometheus metrics: requests, validations by outcome, latency per layer, and the
quality metrics (evaluation time, score and confidence distributions, essential
failure rate, tokens), model errors by kind and cost.

Each app has its own registry, so several apps (tests, embedders) never collide. With
several worker processes, `PROMETHEUS_MULTIPROC_DIR` (set by `jurist serve --workers N`)
makes every worker write its samples to shared files, and /metrics reads them all.
"""

import os
from collections.abc import Iterable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.multiprocess import MultiProcessCollector

from jurist.core import Cause, Judgment, Status, Usage
from jurist.judges import RubricReport, RubricResult

_SECONDS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600)
_MILLISECONDS = tuple(b * 1000 for b in _SECONDS)
_SCORES = (1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5)
_UNIT = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


# Each sample written to the shared files asks for the process id first, to notice a fork
# (a child must write files of its own). prometheus_client asks the kernel each time, a
# system call per sample, several per request; the id kept here is renewed in a forked
# child instead.
_process = {"id": os.getpid()}
os.register_at_fork(after_in_child=lambda: _process.update(id=os.getpid()))


def _process_id() -> int:
    return _process["id"]


if getattr(values.ValueClass, "_multiprocess", False):
    # Before any metric of this process holds a value of the class it replaces: two of
    # them would map the same file, each unaware of the other's samples.
    values.ValueClass = values.MultiProcessValue(process_identifier=_process_id)  # type: ignore[no-untyped-call]


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter(
            "jurist_http_requests",
            "HTTP requests by route and status",
            ["route", "status"],
            registry=r,
        )
        self.validations = Counter(
            "jurist_validations",
            "validation requests by outcome (valid, invalid, rejected, unavailable, timeout)",
            ["outcome"],
            registry=r,
        )
        self.validation_seconds = Histogram(
            "jurist_validation_seconds", "wall time of a validation", buckets=_SECONDS, registry=r
        )
        self.layer_seconds = Histogram(
            "jurist_validation_layer_seconds",
            "wall time of a validation layer",
            ["layer"],
            buckets=_SECONDS,
            registry=r,
        )
        self.layer_errors = Counter(
            "jurist_validation_layer_errors",
            "layers that could not complete",
            ["layer", "cause"],
            registry=r,
        )
        self.evaluation_ms = Histogram(
            "jurist_qualitative_evaluation_time_ms",
            "wall time of one rubric evaluation (qualitative.evaluation_time_ms)",
            buckets=_MILLISECONDS,
            registry=r,
        )
        self.scores = Histogram(
            "jurist_qualitative_score",
            "expected 1-5 score per rubric criterion (qualitative.score_distribution)",
            ["criterion"],
            buckets=_SCORES,
            registry=r,
        )
        self.evaluations = Counter(
            "jurist_qualitative_evaluations", "rubric evaluations", registry=r
        )
        self.essential_failures = Counter(
            "jurist_qualitative_essential_failures",
            "rubric evaluations with an essential criterion failed",
            registry=r,
        )
        self.essential_failure_rate = Gauge(
            "jurist_qualitative_essential_failure_rate",
            "essential failures / rubric evaluations (qualitative.essential_failure_rate)",
            registry=r,
            multiprocess_mode="mostrecent",
        )
        self.tokens = Counter(
            "jurist_llm_tokens_used",
            "model tokens used (qualitative.llm_tokens_used)",
            ["direction"],
            registry=r,
        )
        self.confidence = Histogram(
            "jurist_confidence",
            "confidence of results (qualitative.confidence_distribution)",
            ["source"],
            buckets=_UNIT,
            registry=r,
        )
        self.model_errors = Counter(
            "jurist_model_errors",
            "judgments that failed because of the model, by kind",
            ["kind"],
            registry=r,
        )
        self.cost = Counter("jurist_cost_usd", "known model cost in US dollars", registry=r)
        self._evaluated = 0
        self._essential_failed = 0

    def observe_judgment(self, judgment: Judgment, source: str) -> None:
        """What any judgment tells: tokens, cost, a model error, a rubric's scores."""
        self.observe_usage(judgment.usage)
        if judgment.status is Status.ERROR:
            self.model_errors.labels((judgment.cause or Cause.ERROR).value).inc()
        elif judgment.confidence is not None:
            self.confidence.labels(source).observe(judgment.confidence)
        rubric = RubricReport.of(judgment)
        if rubric is not None:
            self._observe_rubric(rubric.rubric_result)

    def observe_usage(self, usage: Usage | None) -> None:
        if usage is None:
            return
        self.tokens.labels("input").inc(usage.input_tokens)
        self.tokens.labels("output").inc(usage.output_tokens)
        if usage.cost_usd:
            self.cost.inc(usage.cost_usd)

    def observe_layers(self, durations_ms: Iterable[tuple[str, float, str | None]]) -> None:
        for layer, duration_ms, cause in durations_ms:
            self.layer_seconds.labels(layer).observe(duration_ms / 1000)
            if cause is not None:
                self.layer_errors.labels(layer, cause).inc()

    def _observe_rubric(self, result: RubricResult) -> None:
        self.evaluation_ms.observe(result.evaluation_time_ms)
        for criterion in result.criteria_results:
            self.scores.labels(criterion.criterion_name).observe(criterion.expected_score)
        self.evaluations.inc()
        self._evaluated += 1
        if result.essential_failed:
            self.essential_failures.inc()
            self._essential_failed += 1
        self.essential_failure_rate.set(self._essential_failed / self._evaluated)

    def exposition(self) -> tuple[bytes, str]:
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            registry = CollectorRegistry()
            MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
            return generate_latest(registry), CONTENT_TYPE_LATEST
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
