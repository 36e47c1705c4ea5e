"""The audit list of officiating acts: one row per act, written inside the act's own
transaction (RULES.md, Officiating)."""

from scoring.models import Game, OfficialAct


def record_act(
    kind: str,
    *,
    by,
    game: Game | None = None,
    scope: str = "",
    subject: str = "",
    hand: int | None = None,
    reason: str = "",
    **detail,
) -> OfficialAct:
    """Write one act: ``kind`` (an ``OfficialAct.Kind``), who did it and why."""
    return OfficialAct.objects.create(
        game=game,
        scope=scope,
        subject=subject[:250],
        hand_number=hand,
        kind=kind,
        reason=(reason or "")[:500],
        detail=detail,
        actor=by if getattr(by, "pk", None) else None,
    )
