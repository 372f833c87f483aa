"""Prompt contracts: a template with the answer schema beside it, and its reader."""

import json
from importlib import resources

import pytest

from jurist.prompts import Prompt, PromptError, PromptTemplate, answer_schema

TEMPLATES = resources.files("jurist.prompts").joinpath("templates")


def test_every_schema_file_is_a_json_object_beside_its_template():
    for entry in TEMPLATES.iterdir():
        if entry.name.endswith(".schema.json"):
            name = entry.name.removesuffix(".schema.json")
            assert TEMPLATES.joinpath(f"{name}.j2").is_file(), name
            assert isinstance(json.loads(entry.read_text("utf-8")), dict)
            assert Prompt.named(name).schema == answer_schema(name)


def test_a_template_without_a_schema_asks_for_free_text():
    assert Prompt.named("system").schema is None
    with pytest.raises(PromptError, match="no answer schema"):
        answer_schema("system")


def test_answer_schema_is_a_fresh_copy():
    for entry in TEMPLATES.iterdir():
        if entry.name.endswith(".schema.json"):
            name = entry.name.removesuffix(".schema.json")
            answer_schema(name)["mutated"] = True
            assert "mutated" not in answer_schema(name)


def test_a_contract_reads_with_its_reader():
    prompt = Prompt(PromptTemplate("Say {{ x }}", name="t"), {"type": "object"})
    contract = prompt.reading(lambda response: response.text, logprobs=True).then(str.upper)
    assert contract.name == "t"
    assert contract.schema == {"type": "object"}
    assert contract.logprobs
    assert prompt.render(x="hi").text == "Say hi\n"
