"""Who may do what: one table of rules that every API view and page asks.

An action is a dotted name (``game.view``, ``game.score``, ``game.manage``,
``tournament.manage`` ...). Each app registers the rules that grant an action, so a
higher app can widen an action without a lower one knowing it (tournaments lets its
organizers score their games; scoring never imports tournaments). Superusers may do
anything; anonymous users get only what a rule grants them explicitly.
"""

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from django.core.exceptions import PermissionDenied

Rule = Callable[[Any, Any], bool]

_rules: dict[str, list[Rule]] = defaultdict(list)


def grants(action: str) -> Callable[[Rule], Rule]:
    """Register a rule ``(user, obj) -> bool`` that grants ``action``."""

    def register(rule: Rule) -> Rule:
        if rule not in _rules[action]:
            _rules[action].append(rule)
        return rule

    return register


def allowed(user, action: str, obj: Any = None) -> bool:
    """Whether ``user`` (possibly anonymous) may perform ``action`` on ``obj``."""
    if user is not None and getattr(user, "is_active", False) and user.is_superuser:
        return True
    return any(rule(user, obj) for rule in _rules[action])


def require(user, action: str, obj: Any = None) -> None:
    """Raise ``PermissionDenied`` unless ``user`` may perform ``action`` on ``obj``."""
    if not allowed(user, action, obj):
        raise PermissionDenied(f"You may not {action.replace('.', ' ')}.")


def is_signed_in(user) -> bool:
    return user is not None and getattr(user, "is_authenticated", False) and user.is_active
