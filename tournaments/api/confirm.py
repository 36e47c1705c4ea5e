"""The API's confirmation of an act that ends a game or removes a person: the body says
``"confirm": true``, or nothing changes and the answer (400) says what the act would do."""

from rest_framework import serializers

from domain.i18n import told
from domain.say import say
from scoring.api import fields
from scoring.bounds import ID_MAX
from tournaments import services
from tournaments.api.serializers import EntrantActionSerializer
from tournaments.services import forfeits

CONFIRM_HELP = (
    "true to confirm the act, which ends a game or removes a person; without it nothing "
    "changes and the answer (400) says what it would do."
)


def confirm_field(**kwargs) -> fields.Flag:
    return fields.Flag(required=False, default=False, help_text=CONFIRM_HELP, **kwargs)


def require_confirmed(confirmed: bool, effect, error=services.TournamentError) -> None:
    """Refuse an act not confirmed, saying what it would do (``effect``: one message or a
    list of them), as ``error`` (the calling app's own 400)."""
    if confirmed is True:
        return
    lines = effect if isinstance(effect, list | tuple) else [effect]
    said = " ".join(told(line) for line in lines)
    raise error(
        told(say("Nothing changed: {effect} Send confirm: true to do it.", effect=said)),
        "confirm",
    )


class EntrantActionRequestSerializer(EntrantActionSerializer):
    """A check-in's override, or a withdrawal's confirmation and what happens at a table
    of theirs that has not started."""

    confirm = confirm_field()
    unstarted = serializers.ChoiceField(
        choices=forfeits.LEAVING,
        required=False,
        allow_null=True,
        default=None,
        help_text=(
            "Withdraw: what happens at their table not started yet: play_on (the others "
            "play on with one fewer, where the rule set plays at that size), reseat (an "
            "entrant free in that round takes the seat; give substitute) or forfeit (the "
            "game ends as their forfeit). Needed when they sit at such a table."
        ),
    )
    substitute = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="Withdraw with reseat: the id of the entrant who takes the seat.",
    )


def withdraw_confirmed(request, tournament, entrant):
    """Withdraw ``entrant`` as the body says, once confirmed; a table of theirs not started
    needs its choice said."""
    body = EntrantActionRequestSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    data = body.validated_data
    require_confirmed(data["confirm"], forfeits.withdrawal_effect(entrant))
    unstarted = forfeits.unstarted_seats(entrant)
    if unstarted and data["unstarted"] is None:
        raise services.TournamentError(
            say(
                "{name} sits at table {table}, which has not started: say what happens "
                "there ({choices}).",
                name=entrant.name,
                table=unstarted[0].match.table_number,
                choices=", ".join(forfeits.leaving_options(unstarted[0])),
            ),
            "unstarted",
        )
    substitute = None
    if data["unstarted"] == forfeits.RESEAT:
        substitute = tournament.entrants.filter(pk=data["substitute"] or 0).first()
        if substitute is None:
            raise services.TournamentError(
                say("Choose who takes the seat: an entrant free in this round."), "substitute"
            )
    return services.withdraw(
        entrant, by=request.user, unstarted=data["unstarted"], substitute=substitute
    )
