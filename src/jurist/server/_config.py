"""The service's configuration, from the environment: the JUDGE_* and feature variables plus
jurist's own. A bad value stops the start with a message naming the variable."""

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from jurist.core import JuristError
from jurist.server._sealing import Sealer
from jurist.settings import Settings, explain_invalid

DEFAULT_PORT = 8005
LOOPBACK = "127.0.0.1"

# Every variable the service reads, for deployment files and `jurist serve --help`.
ENVIRONMENT_VARIABLES = (
    "JUDGE_PORT",
    "JUDGE_MODEL",
    "JUDGE_TEMPERATURE",
    "KNOWLEDGE_BASE_URL",
    "TRUSTED_SOURCES_URL",
    "ENABLE_HALLUCINATION_DETECTION",
    "ENABLE_FACT_CHECKING",
    "FACT_CHECK_THRESHOLD",
    "QUALITY_MIN_SCORE",
    "LOG_LEVEL",
    "LOG_VALIDATION_RESULTS",
    "JURIST_DATABASE_URL",
    "JURIST_DB_CONNECT_TIMEOUT_S",
    "JURIST_DB_STATEMENT_TIMEOUT_S",
    "JURIST_DB_POOL_TIMEOUT_S",
    "JURIST_AUDIT_RETRY_S",
    "JURIST_AUDIT_SPOOL_DIR",
    "JURIST_API_KEYS",
    "JURIST_HOST",
    "JURIST_RATE_LIMIT",
    "JURIST_RATE_LIMIT_STORAGE",
    "JURIST_KEY_CACHE_S",
    "JURIST_MAX_BODY_BYTES",
    "JURIST_MAX_JSON_DEPTH",
    "JURIST_MAX_MODEL_CALLS",
    "JURIST_MAX_SPEC_JUDGES",
    "JURIST_REQUEST_TIMEOUT_S",
    "JURIST_REDACT_PII",
    "JURIST_REDACTOR",
    "JURIST_STORE_CONTENT",
    "JURIST_STORE_RAW",
    "JURIST_ENCRYPTION_KEY",
    "JURIST_RETENTION_DAYS",
    "JURIST_HOME",
    "JURIST_MODEL",
    "JURIST_LOCAL_THREADS",
    "JURIST_CACHE",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
)


class LogLevel(StrEnum):
    DEBUG = "debug"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


def _env(*names: str) -> AliasChoices:
    return AliasChoices(*names)


class ServiceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    host: str = Field(LOOPBACK, validation_alias=_env("JURIST_HOST"))
    port: int = Field(DEFAULT_PORT, ge=1, le=65535, validation_alias=_env("JUDGE_PORT"))
    api_keys: Annotated[str, Field(repr=False)] = Field(
        "", validation_alias=_env("JURIST_API_KEYS")
    )
    rate_limit: str = Field(
        "600/minute",
        validation_alias=_env("JURIST_RATE_LIMIT"),
        description='requests per key, e.g. "120/minute"; "none" turns it off',
    )
    rate_limit_storage: Literal["database", "memory"] = Field(
        "database",
        validation_alias=_env("JURIST_RATE_LIMIT_STORAGE"),
        description="where requests are counted: the database (shared by every worker and "
        "replica) or each process's memory",
    )
    key_cache_s: float = Field(
        5.0,
        ge=0,
        le=3600,
        validation_alias=_env("JURIST_KEY_CACHE_S"),
        description="how long a key looked up in the database is remembered: the longest a "
        "key revoked by another process keeps working",
    )
    max_body_bytes: int = Field(1_048_576, ge=1024, validation_alias=_env("JURIST_MAX_BODY_BYTES"))
    max_model_calls: int = Field(
        200,
        ge=1,
        le=100_000,
        validation_alias=_env("JURIST_MAX_MODEL_CALLS"),
        description="model calls one POST /judge or /validate may make; past them the judges "
        "asking get an error (budget): an ERROR judgment, an invalid validation",
    )
    max_spec_judges: int = Field(
        32,
        ge=1,
        le=1000,
        validation_alias=_env("JURIST_MAX_SPEC_JUDGES"),
        description="judges one judge spec sent to POST /judge may hold, at every level",
    )
    request_timeout_s: float = Field(
        300.0,
        gt=0,
        le=3600,
        validation_alias=_env("JURIST_REQUEST_TIMEOUT_S"),
        description="the deadline of one request; a full validation on the embedded model "
        "takes minutes",
    )
    log_level: LogLevel = Field(LogLevel.INFO, validation_alias=_env("LOG_LEVEL"))
    log_validation_results: bool = Field(True, validation_alias=_env("LOG_VALIDATION_RESULTS"))
    store_content: Literal["sealed", "redacted"] = Field(
        "sealed",
        validation_alias=_env("JURIST_STORE_CONTENT"),
        description="how stored records keep their content: sealed (encrypted with "
        "JURIST_ENCRYPTION_KEY; the plain columns hold a content-free outline; nothing is "
        "redacted on the way in) or redacted (the plain columns hold a copy with personal "
        "data replaced, as found by the redactor)",
    )
    store_raw: bool = Field(
        False,
        validation_alias=_env("JURIST_STORE_RAW"),
        description="with JURIST_STORE_CONTENT=redacted, keep each record's raw content too, "
        "sealed with JURIST_ENCRYPTION_KEY (by default only the redacted copy is stored); "
        "sealed content is always raw",
    )
    encryption_key: Annotated[str, Field(repr=False)] = Field(
        "",
        validation_alias=_env("JURIST_ENCRYPTION_KEY"),
        description="Fernet keys, comma-separated: the first seals raw content, every one "
        "unseals it (`jurist store new-key` makes one); unset with sealed content on SQLite, "
        "a key is made into JURIST_HOME/encryption.key",
    )
    retention_days: float | None = Field(
        None,
        gt=0,
        validation_alias=_env("JURIST_RETENTION_DAYS"),
        description="delete validations, service judgments, audit entries and rate-limit "
        'counts older than this many days, hourly; unset or "none" keeps them',
    )

    @field_validator("encryption_key")
    @classmethod
    def _fernet_keys(cls, value: str) -> str:
        if value.strip():
            Sealer.parse(value)
        return value

    @field_validator("retention_days", mode="before")
    @classmethod
    def _keep_forever(cls, value: object) -> object:
        if isinstance(value, str) and value.strip().lower() in {"", "none", "keep", "forever"}:
            return None
        return value


class ConfigError(JuristError, ValueError):
    """A setting the service cannot start with; the message names the variable."""


def load_config() -> tuple[Settings, ServiceSettings]:
    """Both settings objects, read from the environment, or a ConfigError naming every bad
    variable."""
    try:
        settings = Settings()
    except ValidationError as exc:
        raise ConfigError(explain_invalid(exc, Settings)) from None
    try:
        service = ServiceSettings()
    except ValidationError as exc:
        raise ConfigError(explain_invalid(exc, ServiceSettings)) from None
    return settings, service
