"""The policies a jury is configured with. Their values are wire names: stable, lower case."""

from enum import StrEnum


class TiePolicy(StrEnum):
    """What a majority vote concludes when pass and fail weigh exactly the same."""

    PASS = "pass"
    FAIL = "fail"
    ABSTAIN = "abstain"


class ErrorPolicy(StrEnum):
    """What an ERROR ballot means to a voting strategy; applied before anything is counted.

    - TREAT_AS_FAIL: the error is a FAIL vote (normalised value 0.0). The default, because
      then a broken judge can never help a verdict pass.
    - TREAT_AS_ABSTAIN: the error is an abstention; if every vote is one, the result is
      ABSTAIN.
    - IGNORE: the error is left out as if the judge were not on the jury. If nothing but
      errors is left (not even an abstention), the result is ERROR: there is nothing to
      ignore them in favour of, and ABSTAIN would hide that the judges broke.
    - PROPAGATE: any error makes the result ERROR, naming the judges and their causes.
    """

    TREAT_AS_FAIL = "treat_as_fail"
    TREAT_AS_ABSTAIN = "treat_as_abstain"
    IGNORE = "ignore"
    PROPAGATE = "propagate"


class TierPolicy(StrEnum):
    """When a cascade tier settles the verdict instead of handing on to the next tier.

    - REJECT_ON_ANY_FAIL: stop with FAIL if the tier's verdict or any of its judges failed.
    - ACCEPT_ON_ALL_PASS: stop with PASS if the tier's verdict and all its judges passed.
    - FINAL: always settles; required of the last tier and only the last.

    A tier whose verdict is ERROR always stops the cascade with ERROR.
    """

    REJECT_ON_ANY_FAIL = "reject_on_any_fail"
    ACCEPT_ON_ALL_PASS = "accept_on_all_pass"
    FINAL = "final"
