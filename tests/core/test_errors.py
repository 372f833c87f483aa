"""Every error jurist raises derives from JuristError, so one `except` catches them all."""

import importlib
import inspect
import pkgutil

import pytest

import jurist
from jurist import JuristError
from jurist.core import StrictJsonError, loads_strict

# Modules that do something when imported rather than define things: the CLI entry point
# runs the app, and Alembic's environment script runs a migration.
_SCRIPTS = {"jurist.cli.__main__", "jurist.store.migrations.env"}


def _modules() -> list[str]:
    return [
        info.name
        for info in pkgutil.walk_packages(jurist.__path__, "jurist.")
        if info.name not in _SCRIPTS
    ]


def _exception_classes() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for name in _modules():
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found.append(value)
    return found


def test_the_walk_finds_the_errors_of_every_floor() -> None:
    modules = {cls.__module__.split(".")[1] for cls in _exception_classes()}
    assert {
        "core",
        "llm",
        "prompts",
        "rubrics",
        "store",
        "specs",
        "data",
        "server",
        "cli",
    } <= modules


@pytest.mark.parametrize(
    "cls", _exception_classes(), ids=lambda cls: f"{cls.__module__}.{cls.__qualname__}"
)
def test_every_exception_class_derives_from_jurist_error(cls: type[BaseException]) -> None:
    assert issubclass(cls, JuristError)


def test_an_error_keeps_its_builtin_base() -> None:
    with pytest.raises(ValueError, match="JSON"):
        loads_strict("[1,")
    with pytest.raises(JuristError) as caught:
        loads_strict("[1,")
    assert isinstance(caught.value, StrictJsonError)
