"""jurist's settings, read from the environment (and a `.env` file) by pydantic-settings.

Names are `JURIST_*`; the validation service's spec names (`JUDGE_MODEL`,
`JUDGE_TEMPERATURE`) are accepted as well, and provider keys keep their usual names
(`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`). In code, pass the same names:
`Settings(JURIST_MODEL="openai:gpt-4o-mini")`; field names are not accepted, since the
environment would then fill `home` from `$HOME`.
"""

import functools
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_MODEL = "local:qwen2.5-1.5b"

# The kinds of finding a validation reports, each given a severity by the validation
# service's severity policy (`jurist.validation.SeverityPolicy` holds the defaults).
ValidationFinding = Literal[
    "schema_violation",
    "contradicted_fact",
    "unverified_fact",
    "contradicted_claim",
    "unsupported_claim",
    "criteria_not_met",
    "low_completeness",
    "low_clarity",
    "low_consistency",
    "low_quality",
]


def _env(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    home: Annotated[Path, Field(validation_alias=_env("JURIST_HOME"))] = Field(
        default_factory=lambda: platformdirs.user_cache_path("jurist"),
        description="where jurist keeps assembled models, the response cache and its store",
    )
    model: str = Field(
        DEFAULT_MODEL,
        validation_alias=_env("JURIST_MODEL", "JUDGE_MODEL"),
        description="the model spec judges use when none is given",
    )
    temperature: float = Field(
        0.0,
        ge=0.0,
        le=2.0,
        validation_alias=_env("JURIST_TEMPERATURE", "JUDGE_TEMPERATURE"),
        description="the sampling temperature judges ask for by default",
    )
    rubrics_path: str | None = Field(
        None,
        validation_alias=_env("JURIST_RUBRICS_PATH"),
        description="directories of rubric files (os.pathsep-separated), searched before the "
        "built-in library",
    )
    openai_api_key: str | None = Field(None, validation_alias=_env("OPENAI_API_KEY"))
    openai_base_url: str | None = Field(None, validation_alias=_env("OPENAI_BASE_URL"))
    openai_compatible_api_key: str | None = Field(
        None,
        validation_alias=_env("JURIST_OPENAI_COMPATIBLE_API_KEY"),
        description="the key an openai-compatible server wants, if any",
    )
    anthropic_api_key: str | None = Field(None, validation_alias=_env("ANTHROPIC_API_KEY"))
    anthropic_base_url: str | None = Field(None, validation_alias=_env("ANTHROPIC_BASE_URL"))
    ollama_base_url: str | None = Field(
        None,
        validation_alias=_env("JURIST_OLLAMA_BASE_URL"),
        description="the OpenAI-compatible base URL of the Ollama server `ollama:MODEL` calls; "
        "else http://OLLAMA_HOST/v1 when OLLAMA_HOST is set, else http://127.0.0.1:11434/v1",
    )
    ollama_host: str | None = Field(
        None,
        validation_alias=_env("OLLAMA_HOST"),
        description="Ollama's own host[:port] setting, read when JURIST_OLLAMA_BASE_URL is not "
        "set (a server's bind address 0.0.0.0 is reached at 127.0.0.1)",
    )
    vllm_base_url: str | None = Field(
        None,
        validation_alias=_env("JURIST_VLLM_BASE_URL"),
        description="the base URL of the vLLM server `vllm:MODEL` calls; "
        "default http://127.0.0.1:8000/v1",
    )
    vllm_api_key: str | None = Field(
        None,
        validation_alias=_env("JURIST_VLLM_API_KEY", "VLLM_API_KEY"),
        description="the key a vLLM server started with --api-key wants",
    )
    azure_openai_endpoint: str | None = Field(
        None,
        validation_alias=_env("AZURE_OPENAI_ENDPOINT"),
        description="the Azure OpenAI resource `azure:DEPLOYMENT` calls "
        "(https://NAME.openai.azure.com)",
    )
    azure_openai_api_key: str | None = Field(None, validation_alias=_env("AZURE_OPENAI_API_KEY"))
    openai_api_version: str | None = Field(
        None,
        validation_alias=_env("OPENAI_API_VERSION"),
        description="the Azure OpenAI API version `azure:DEPLOYMENT` asks for (2024-10-21, ...)",
    )
    litellm_api_base: str | None = Field(
        None,
        validation_alias=_env("JURIST_LITELLM_API_BASE"),
        description="a base URL every `litellm:MODEL` call goes to (a LiteLLM proxy, a "
        "self-hosted server); unset, LiteLLM finds each provider's own",
    )
    litellm_api_key: str | None = Field(
        None,
        validation_alias=_env("JURIST_LITELLM_API_KEY"),
        description="the key every `litellm:MODEL` call sends (a LiteLLM proxy's); unset, "
        "LiteLLM reads each provider's own variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...)",
    )
    cache: bool = Field(
        True,
        validation_alias=_env("JURIST_CACHE"),
        description="cache temperature-0 responses on disk (JURIST_CACHE=0 turns it off)",
    )
    otel: bool = Field(
        False,
        validation_alias=_env("JURIST_OTEL"),
        description="send OpenTelemetry spans of judgments, juries, validation layers and "
        "model calls over OTLP/HTTP from the jurist command and service (needs the otel "
        "extra); also on when OTEL_EXPORTER_OTLP_ENDPOINT or its traces form is set",
    )
    otel_endpoint: str | None = Field(
        None,
        validation_alias=_env("OTEL_EXPORTER_OTLP_ENDPOINT"),
        description="OpenTelemetry's standard OTLP base URL (traces go to its /v1/traces); "
        "default http://localhost:4318",
    )
    otel_traces_endpoint: str | None = Field(
        None,
        validation_alias=_env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
        description="OpenTelemetry's standard OTLP traces URL, used as it is",
    )
    timeout_s: float = Field(120.0, gt=0, validation_alias=_env("JURIST_TIMEOUT_S"))
    max_attempts: int = Field(4, ge=1, le=20, validation_alias=_env("JURIST_MAX_ATTEMPTS"))
    max_concurrency: int = Field(
        256,
        ge=1,
        le=1024,
        validation_alias=_env("JURIST_MAX_CONCURRENCY"),
        description="the most calls in flight to one provider endpoint: the ceiling of the "
        "adaptive limit (it starts at 32, doubles while the provider keeps up, halves on a "
        "429), and how many items a batch keeps in flight by default",
    )
    concurrency: int | None = Field(
        None,
        ge=1,
        le=1024,
        validation_alias=_env("JURIST_CONCURRENCY"),
        description="a fixed number of calls in flight to one provider endpoint, instead of "
        "the adaptive limit",
    )
    requests_per_minute: float | None = Field(
        None, gt=0, validation_alias=_env("JURIST_REQUESTS_PER_MINUTE")
    )
    tokens_per_minute: float | None = Field(
        None, gt=0, validation_alias=_env("JURIST_TOKENS_PER_MINUTE")
    )
    prices_file: Path | None = Field(
        None,
        validation_alias=_env("JURIST_PRICES"),
        description="a TOML price table that replaces the bundled one",
    )
    models_path: Path | None = Field(
        None,
        validation_alias=_env("JURIST_MODELS_DIR"),
        description="where assembled model files go (default: JURIST_HOME/models)",
    )
    local_threads: int | None = Field(
        None,
        ge=1,
        validation_alias=_env("JURIST_LOCAL_THREADS"),
        description="CPU threads for the embedded model (default: all cores)",
    )
    local_context: int = Field(
        8192,
        ge=512,
        validation_alias=_env("JURIST_LOCAL_CONTEXT"),
        description="context window, in tokens, of the embedded model",
    )
    cluster: str | None = Field(
        None,
        pattern=r"^(local(:[1-9][0-9]*)?|(tcp|tls)://\S+)$",
        validation_alias=_env("JURIST_CLUSTER"),
        description="where batch commands judge their items: local:N (a Dask cluster of N "
        "worker processes on this machine) or tcp://HOST:PORT (a running Dask scheduler); "
        "unset, in the command's own process",
    )
    database_url: str | None = Field(
        None,
        validation_alias=_env("JURIST_DATABASE_URL"),
        description="SQLAlchemy URL of the store (default: SQLite under JURIST_HOME)",
    )
    db_connect_timeout_s: float = Field(
        3.0,
        gt=0,
        le=600,
        validation_alias=_env("JURIST_DB_CONNECT_TIMEOUT_S"),
        description="how long opening a connection to PostgreSQL may take",
    )
    db_statement_timeout_s: float = Field(
        5.0,
        gt=0,
        le=3600,
        validation_alias=_env("JURIST_DB_STATEMENT_TIMEOUT_S"),
        description="PostgreSQL's statement_timeout, and how long jurist waits on a silent "
        "database before closing the connection (raise it for long migrations)",
    )
    db_pool_timeout_s: float = Field(
        3.0,
        gt=0,
        le=600,
        validation_alias=_env("JURIST_DB_POOL_TIMEOUT_S"),
        description="how long a store call waits for a free PostgreSQL connection",
    )
    audit_retry_s: float = Field(
        5.0,
        gt=0,
        le=3600,
        validation_alias=_env("JURIST_AUDIT_RETRY_S"),
        description="how often the service retries writing the audit records it kept on disk "
        "while the database was unavailable",
    )
    audit_spool_path: Path | None = Field(
        None,
        validation_alias=_env("JURIST_AUDIT_SPOOL_DIR"),
        description="where audit records wait while the database is unavailable (default: "
        "JURIST_HOME/audit-spool); it must be writable and outlive the process",
    )
    fact_check_threshold: float = Field(
        0.8,
        gt=0.0,
        lt=1.0,
        validation_alias=_env("JURIST_FACT_CHECK_THRESHOLD", "FACT_CHECK_THRESHOLD"),
        description="the probability of support a fact needs to count as verified",
    )

    quality_min_score: float = Field(
        0.7,
        ge=0.0,
        le=1.0,
        validation_alias=_env("JURIST_QUALITY_MIN_SCORE", "QUALITY_MIN_SCORE"),
        description="a validation's quality criterion scoring below this (0..1) is a warning",
    )
    validation_severity: Annotated[
        dict[ValidationFinding, Literal["error", "warning", "info"]], NoDecode
    ] = Field(
        default_factory=dict,
        validation_alias=_env("JURIST_VALIDATION_SEVERITY"),
        description="severities that replace the validation policy's defaults, as a JSON "
        'object of finding kinds, e.g. {"unverified_fact": "error"}; a request\'s '
        "severity_policy overrides these in turn",
    )
    enable_hallucination_detection: bool = Field(
        True,
        validation_alias=_env(
            "JURIST_ENABLE_HALLUCINATION_DETECTION", "ENABLE_HALLUCINATION_DETECTION"
        ),
        description="allow the hallucination layer of a validation",
    )
    enable_fact_checking: bool = Field(
        True,
        validation_alias=_env("JURIST_ENABLE_FACT_CHECKING", "ENABLE_FACT_CHECKING"),
        description="allow the facts layer of a validation",
    )
    knowledge_base_url: str | None = Field(
        None,
        validation_alias=_env("JURIST_KNOWLEDGE_BASE_URL", "KNOWLEDGE_BASE_URL"),
        description="database URL of the knowledge base fact-checking searches "
        "(default: the store)",
    )
    trusted_sources_url: str | None = Field(
        None,
        validation_alias=_env("JURIST_TRUSTED_SOURCES_URL", "TRUSTED_SOURCES_URL"),
        description="base URL of another jurist service whose knowledge base answers "
        "fact-checking searches, instead of a local one",
    )
    redact_pii: bool = Field(
        False,
        validation_alias=_env("JURIST_REDACT_PII"),
        description="redact personal data from every request to a remote model provider",
    )
    redactor: str | None = Field(
        None,
        validation_alias=_env("JURIST_REDACTOR"),
        description='the PII redactor: "presidio" (default) or "module:attribute"',
    )
    # Capped well below the interpreter's recursion limit: whatever reads the value after the
    # strict reader (pydantic, serializers, redaction) may recurse once per level.
    max_json_depth: int = Field(
        64,
        ge=1,
        le=256,
        validation_alias=_env("JURIST_MAX_JSON_DEPTH"),
        description="how deeply JSON read from a request, a file or a dataset row may nest",
    )

    @field_validator("validation_severity", mode="before")
    @classmethod
    def _json_object(cls, value: Any) -> Any:
        # Read here rather than by pydantic-settings, so text that is not JSON is refused
        # like any other bad value, naming the variable.
        if not isinstance(value, str):
            return value
        if not value.strip():
            return {}
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not JSON ({exc})") from None

    @property
    def models_dir(self) -> Path:
        return self.models_path or self.home / "models"

    @property
    def audit_spool_dir(self) -> Path:
        return self.audit_spool_path or self.home / "audit-spool"

    @property
    def cache_file(self) -> Path:
        return self.home / "cache" / "responses.sqlite3"

    @property
    def database_file(self) -> Path:
        return self.home / "jurist.sqlite3"

    @property
    def tracing(self) -> bool:
        """Whether the jurist command and service send spans (JURIST_OTEL, or an OTLP
        endpoint set the standard way)."""
        return self.otel or bool(self.otel_endpoint or self.otel_traces_endpoint)

    @property
    def traces_endpoint(self) -> str | None:
        """Where spans are sent: the traces URL, else the base URL's /v1/traces, else None
        (the exporter's default, http://localhost:4318/v1/traces)."""
        if self.otel_traces_endpoint:
            return self.otel_traces_endpoint
        if self.otel_endpoint:
            return self.otel_endpoint.rstrip("/") + "/v1/traces"
        return None

    @property
    def concurrency_ceiling(self) -> int:
        """The most calls in flight to one provider endpoint: the fixed number when one is
        set, else the adaptive limit's ceiling."""
        return self.concurrency or self.max_concurrency


@functools.cache
def get_settings() -> Settings:
    """The process's settings, read once. Tests and embedders pass a `Settings` explicitly."""
    return Settings()


def _variable(settings_type: type[BaseSettings], field: str) -> str:
    alias = settings_type.model_fields[field].validation_alias
    if isinstance(alias, AliasChoices):
        # The public name when there is one (the last choice), as operators will have set it.
        names = [str(choice) for choice in alias.choices]
        present = [name for name in names if name in os.environ]
        return present[0] if present else names[-1]
    return field


def explain_invalid(error: ValidationError, settings_type: type[BaseSettings]) -> str:
    """Every bad variable of `error`, by the name it is set with, and what is wrong with it:
    `invalid configuration: JURIST_X='y': problem; ...`."""
    problems = []
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else ""
        name = _variable(settings_type, field) if field in settings_type.model_fields else field
        # Keys and URLs may hold secrets: their values are never echoed.
        secret = any(word in name for word in ("KEY", "URL", "SECRET", "PASSWORD"))
        shown = "" if secret else f"={item.get('input')!r}"
        problems.append(f"{name}{shown}: {item['msg']}")
    return "invalid configuration: " + "; ".join(problems)
