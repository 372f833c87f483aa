"""Helpers for testing code that uses jurist: `FakeModel`, a model that answers what the test
scripted and records what it was asked, so a judge built with it gives a known verdict
without weights, keys or network.

    from jurist.testing import FakeModel

    model = FakeModel({"answer": "no", "reason": "It never mentions the window."})
    judge = CriterionJudge("The answer states the refund window", model)
"""

from jurist.testing._fake_model import FakeModel, Reply, ReplyFunction

__all__ = ["FakeModel", "Reply", "ReplyFunction"]
