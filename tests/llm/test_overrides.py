"""with_options: every request goes out with the options fixed on the model, the others as
the request set them."""

from jurist.llm import Request, WithOptions, with_options
from scripted import ScriptedModel, answer


async def test_the_given_options_replace_the_requests_own():
    model = ScriptedModel(script=[answer()])
    wrapped = with_options(model, temperature=0.7, seed=3, timeout_s=5.0)
    await wrapped.complete(Request.of("hello", temperature=0.0, seed=0, timeout_s=60.0))
    sent = model.requests[0]
    assert (sent.temperature, sent.seed, sent.timeout_s) == (0.7, 3, 5.0)


async def test_options_left_out_keep_the_requests_own():
    model = ScriptedModel(script=[answer()])
    await with_options(model, timeout_s=5.0).complete(
        Request.of("hello", temperature=0.4, seed=9, max_tokens=7)
    )
    sent = model.requests[0]
    assert (sent.temperature, sent.seed, sent.timeout_s, sent.max_tokens) == (0.4, 9, 5.0, 7)
    assert sent.messages == Request.of("hello").messages


def test_it_is_a_model_wrapper_named_for_its_model():
    model = ScriptedModel("test:inner")
    wrapped = with_options(model, seed=1)
    assert isinstance(wrapped, WithOptions)
    assert wrapped.name == "test:inner"
    assert wrapped.inner is model
