import pytest

from jurist.testing import FakeModel


def reply(prompt: str) -> dict[str, str]:
    """Stands in for the judge model: yes when the answer names a 30-day window."""
    if "30 days" in prompt:
        return {"answer": "yes", "reason": "It states the 30-day refund window."}
    return {"answer": "no", "reason": "It never says how long a refund can be asked for."}


@pytest.fixture(scope="session")
def jurist_model():
    return FakeModel(reply)
