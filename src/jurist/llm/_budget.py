"""A spending limit enforced before each model call, not discovered after it.

`Budget` holds a cycle's limits on cost and tokens and what was spent; `Budgeted` wraps a model
and asks the budget, before each call, whether the call's worst case still fits. A call that
does not fit is refused with `ModelError(kind=BUDGET)` and the model is never called.
"""

import dataclasses
import logging
import math
import threading

from jurist.core import Usage
from jurist.llm._cost import PriceTable
from jurist.llm._limits import estimate_input_tokens
from jurist.llm._types import ErrorKind, Model, ModelError, Request, Response
from jurist.llm._wrapper import ModelWrapper

log = logging.getLogger(__name__)

# Costs are sums of small floats; a call that lands exactly on the limit fits.
_TOLERANCE = 1e-12


@dataclasses.dataclass(frozen=True, eq=False)
class Reservation:
    """The most one call in flight may use, held against the budget until the call ends."""

    tokens: int
    cost_usd: float | None
    model: str


class Budget:
    """Limits on cost (US dollars) and tokens, what has been spent, and what calls in flight
    have reserved.

    A call reserves its worst case before it starts and is refused when spent plus reserved
    plus that worst case would pass a limit; so calls running at the same time cannot overshoot
    together. When the call ends its reservation gives way to what it actually used. A call
    whose cost is unknown (a model with no price) is bounded by the token limit only.

    Every check and update holds a `threading.Lock` and never awaits inside it, so one budget
    may serve several tasks and several threads' event loops (`complete_sync` runs each call
    on a loop of its own, which an `asyncio.Lock` could not span).
    """

    def __init__(self, *, max_cost_usd: float | None = None, max_tokens: int | None = None) -> None:
        if max_cost_usd is not None and not (math.isfinite(max_cost_usd) and max_cost_usd > 0):
            raise ValueError(
                f"Budget.max_cost_usd must be a number > 0 or None, got {max_cost_usd}"
            )
        if max_tokens is not None and max_tokens < 1:
            raise ValueError(f"Budget.max_tokens must be >= 1 or None, got {max_tokens}")
        self.max_cost_usd = max_cost_usd
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self._spent = Usage(cost_usd=0.0)
        self._known_cost_usd = 0.0
        self._unpriced_calls = 0
        self._reserved: set[Reservation] = set()

    @property
    def spent(self) -> Usage:
        """What the settled calls used; its cost is None once any had an unknown cost."""
        with self._lock:
            return self._spent

    @property
    def spent_cost_usd(self) -> float:
        """The known part of the cost spent: all of it while `unpriced_calls` is 0."""
        with self._lock:
            return self._known_cost_usd

    @property
    def unpriced_calls(self) -> int:
        """Settled calls whose cost nobody knew: the cost limit could not bound them."""
        with self._lock:
            return self._unpriced_calls

    @property
    def reserved_tokens(self) -> int:
        with self._lock:
            return sum(r.tokens for r in self._reserved)

    @property
    def reserved_cost_usd(self) -> float:
        with self._lock:
            return sum(r.cost_usd or 0.0 for r in self._reserved)

    @property
    def in_flight(self) -> int:
        with self._lock:
            return len(self._reserved)

    def fraction_used(self) -> float:
        """The largest share of a limit spent so far (0 with no limits), to tell when the
        cycle nears its budget."""
        with self._lock:
            shares = [0.0]
            if self.max_tokens is not None:
                shares.append(self._spent.total_tokens / self.max_tokens)
            if self.max_cost_usd is not None:
                shares.append(self._known_cost_usd / self.max_cost_usd)
            return max(shares)

    def reserve(self, tokens: int, cost_usd: float | None, *, model: str) -> Reservation:
        """Holds `tokens` and `cost_usd` (None: unknown) for a call to `model`, or raises
        `ModelError(BUDGET)` naming the limit the call could pass."""
        if tokens < 0 or (cost_usd is not None and cost_usd < 0):
            raise ValueError(f"a reservation cannot be negative: {tokens} tokens, {cost_usd} USD")
        with self._lock:
            refusal = self._refusal(tokens, cost_usd)
            if refusal is not None:
                raise ModelError(ErrorKind.BUDGET, refusal, model=model, retryable=False)
            reservation = Reservation(tokens, cost_usd, model)
            self._reserved.add(reservation)
            return reservation

    def settle(self, reservation: Reservation, used: Usage) -> None:
        """Replaces the call's reservation by what it used (cost None: unknown)."""
        with self._lock:
            self._take(reservation)
            self._spent = self._spent + used
            if used.cost_usd is None:
                self._unpriced_calls += max(used.calls, 1)
            else:
                self._known_cost_usd += used.cost_usd

    def release(self, reservation: Reservation) -> None:
        """Gives back the reservation of a call that used nothing (it failed or was cancelled)."""
        with self._lock:
            self._take(reservation)

    def _take(self, reservation: Reservation) -> None:
        try:
            self._reserved.remove(reservation)
        except KeyError:
            raise ValueError("this reservation was already settled or released") from None

    def _refusal(self, tokens: int, cost_usd: float | None) -> str | None:
        if self.max_tokens is not None:
            committed = self._spent.total_tokens + sum(r.tokens for r in self._reserved)
            if committed + tokens > self.max_tokens:
                return (
                    f"max_tokens: this call may use up to {tokens:,} tokens, and {committed:,} "
                    f"of the budget's {self.max_tokens:,} are spent or reserved"
                )
        if self.max_cost_usd is not None and cost_usd is not None:
            committed_usd = self._known_cost_usd + sum(r.cost_usd or 0.0 for r in self._reserved)
            if committed_usd + cost_usd > self.max_cost_usd + _TOLERANCE:
                return (
                    f"max_cost_usd: this call may cost up to {cost_usd:.6f} USD, and "
                    f"{committed_usd:.6f} of the budget's {self.max_cost_usd:.6f} USD are "
                    "spent or reserved"
                )
        return None


class Budgeted(ModelWrapper):
    """Refuses a call its budget cannot cover, before the call is made.

    Each call's worst case is its input estimated from the messages (see `worst_case`) plus
    its whole `max_tokens` for each of its `n` samples, priced from `table` (the shipped
    prices.toml by default). A request with no `max_tokens` is sent with `default_max_tokens`,
    so that its worst case is a bound rather than a guess. The worst case is reserved while
    the call runs; then what the provider reported replaces it, priced from the table when the
    provider gave no cost. An answer from the response cache costs nothing; an answer whose
    provider reported no token counts is charged its worst case.

    A model the table has no price for has an unknown cost: only the token limit bounds its
    calls, and `Budgeted` says so in a warning (once). Put `Budgeted` outermost, around the
    model `get_model` returns, so that cache hits are free and one refusal is final rather
    than retried.
    """

    def __init__(
        self,
        inner: Model,
        budget: Budget,
        *,
        table: PriceTable | None = None,
        default_max_tokens: int = 1024,
    ) -> None:
        super().__init__(inner)
        if default_max_tokens < 1:
            raise ValueError(f"Budgeted.default_max_tokens must be >= 1, got {default_max_tokens}")
        self.budget = budget
        self.table = table if table is not None else PriceTable.load()
        self.default_max_tokens = default_max_tokens
        self._warned = False

    @property
    def priced(self) -> bool:
        """Whether the table knows this model's price, so the cost limit can bound it."""
        return self.table.price(self.name) is not None

    def worst_case(self, request: Request) -> Usage:
        """The most `request` can use: input estimated at three bytes of UTF-8 a token (see
        `estimate_input_tokens`), output the whole `max_tokens` for each sample; cost None
        when the model has no price."""
        output = (request.max_tokens or self.default_max_tokens) * request.n
        usage = Usage(
            input_tokens=estimate_input_tokens(request),
            output_tokens=output,
            model=self.name,
            calls=1,
        )
        return dataclasses.replace(usage, cost_usd=self.table.cost(self.name, usage))

    async def complete(self, request: Request) -> Response:
        if request.max_tokens is None:
            request = dataclasses.replace(request, max_tokens=self.default_max_tokens)
        worst = self.worst_case(request)
        if worst.cost_usd is None:
            self._warn_unpriced()
        reservation = self.budget.reserve(worst.total_tokens, worst.cost_usd, model=self.name)
        try:
            response = await self.inner.complete(request)
        except BaseException:
            # A failed or cancelled call reports no usage; charging its worst case would
            # let a run of errors exhaust a budget nothing was spent from.
            self.budget.release(reservation)
            raise
        self.budget.settle(reservation, self._charge(response, worst))
        return response

    def _charge(self, response: Response, worst: Usage) -> Usage:
        usage = response.usage
        if response.cached:
            return dataclasses.replace(usage, input_tokens=0, output_tokens=0, cost_usd=0.0)
        if usage.total_tokens == 0:
            # Nothing reported: the worst case stands, so the budget errs high, never low.
            return dataclasses.replace(worst, calls=max(usage.calls, 1))
        if usage.cost_usd is not None:
            return usage
        return dataclasses.replace(usage, cost_usd=self.table.cost(self.name, usage))

    def _warn_unpriced(self) -> None:
        if self._warned or self.budget.max_cost_usd is None:
            return
        self._warned = True
        bound = (
            f"only the token limit ({self.budget.max_tokens:,} tokens) bounds its calls"
            if self.budget.max_tokens is not None
            else "nothing bounds its calls: set a token limit"
        )
        log.warning(
            "budget: no price for model %r, so the cost limit of %s USD cannot apply; %s",
            self.name,
            self.budget.max_cost_usd,
            bound,
        )
