"""The engine's error value: an illegal action names the rule it breaks (R9.1).

>>> err = RuleError("R4.11", "3 cards of two ranks are not a combination")
>>> str(err)
'R4.11: 3 cards of two ranks are not a combination'
>>> err.rule, err.message
('R4.11', '3 cards of two ranks are not a combination')
>>> isinstance(err, ValueError)
True
"""

from __future__ import annotations


class RuleError(ValueError):
    """An action the rules forbid, with the RULES.md id of the rule and a readable reason.

    R9.1: an illegal action is rejected with a reason citing the rule; the reason is
    meant to be shown to the person who tried it.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message

    @classmethod
    def from_reason(cls, reason: str) -> "RuleError":
        """Build from a reason already written as ``"R4.5: ..."`` (as ``why_not_beats``
        and ``explain_not_combination`` return them)."""
        rule, sep, message = reason.partition(": ")
        if not sep or not rule.startswith("R"):
            return cls("R9.1", reason)
        return cls(rule, message)

    def __reduce__(self):
        # Keep the two attributes across pickling (Celery, multiprocessing).
        return (type(self), (self.rule, self.message))
