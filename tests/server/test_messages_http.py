"""What the service says when a request is wrong, over real HTTP: each field named once, and
broken JSON placed by line and column."""

import re

from service_script import ServiceScript

CONTEXT = {"goal": "Explain refunds", "output": "Refunds take 30 days."}
QUALITY = {"completeness": 4, "clarity": 5, "consistency": 5}


def repeats_a_prefix(text: str) -> bool:
    """ "rubric: rubric: ..." or "rubric: rubric.criteria[0]: ...": a name said twice."""
    return re.search(r"\b(\w+): \1\b", text) is not None


def test_a_rubric_judgment_and_a_refused_rubric_name_each_field_once(serve):
    running = serve(ServiceScript(quality=QUALITY))
    with running.client() as client:
        judged = client.post("/judge", json={"context": CONTEXT, "rubric": "output-quality"})
        assert judged.status_code == 200, judged.text
        judgment = judged.json()["judgment"]
        said = [judgment["reasoning"], *(check["message"] for check in judgment["checks"])]
        assert said[0].startswith("overall 4.46/5")
        assert not [text for text in said if repeats_a_prefix(text)], said

        unknown = client.post("/judge", json={"context": CONTEXT, "rubric": "no-such-rubric"})
        inline = client.post(
            "/judge",
            json={
                "context": CONTEXT,
                "rubric": {
                    "id": "custom",
                    "name": "Custom",
                    "description": "d",
                    "criteria": [{"name": "x", "description": "y"}],
                },
            },
        )
    assert unknown.status_code == 422, unknown.text
    answer = unknown.json()
    assert answer["errors"] == [
        {"field": "rubric", "message": answer["errors"][0]["message"]},
    ]
    assert answer["message"].startswith("rubric: no rubric with id 'no-such-rubric'; known ids:")
    assert not repeats_a_prefix(answer["message"]), answer["message"]

    assert inline.status_code == 422, inline.text
    assert inline.json()["message"] == "rubric.criteria[0].anchors: required field is missing"


def test_broken_json_is_placed_by_line_and_column_in_the_usual_error_shape(serve):
    running = serve(ServiceScript(lenient=True))
    body = (
        "{\n"
        '  "context": {\n'
        '    "output": "Refunds take 30 days."\n'
        '    "goal": "Explain refunds"\n'  # the comma missing at the end of the line above
        "  },\n"
        '  "criteria": ["Is polite"]\n'
        "}\n"
    )
    with running.client() as client:
        response = client.post(
            "/judge", content=body.encode(), headers={"content-type": "application/json"}
        )
        unclosed = client.post(
            "/validate",
            content=b'{\n  "output": "x",\n  "validation_types": ["schema"\n}',
            headers={"content-type": "application/json"},
        )
    assert response.status_code == 422, response.text
    problem = "invalid JSON at line 4, column 5: Expecting ',' delimiter"
    assert response.json() == {
        "error": "invalid_request",
        "message": f"body: {problem}",
        "errors": [{"field": "body", "message": problem}],
    }
    assert unclosed.status_code == 422, unclosed.text
    assert unclosed.json()["errors"] == [
        {"field": "body", "message": "invalid JSON at line 4, column 1: Expecting ',' delimiter"}
    ]
