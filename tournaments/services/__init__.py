"""Every write an organizer makes to a tournament: one function per action, one transaction,
grouped by subject (the event and its settings, staff, entrants, stages and rounds, results).

Games are created and scored through ``scoring.services``; these modules seat entrants at
tables, pair rounds and move bracket winners on. Callers import from the package."""

from tournaments.services.checkin import check_in_stage, set_check_in
from tournaments.services.common import (
    STATUS_ORDER,
    BulkRegistrationError,
    TournamentConflict,
    TournamentError,
)
from tournaments.services.entrants import (
    check_in,
    preview_entrants,
    register_entrant,
    register_entrants,
    set_seed,
    withdraw,
)
from tournaments.services.events import (
    SCORING_SETTINGS,
    create_tournament,
    play_started,
    update_tournament,
)
from tournaments.services.forfeits import record_did_not_play
from tournaments.services.results import (
    RankingChanged,
    RoundsUnplayed,
    finish_preview,
    finish_stage,
    record_seat_results,
    refresh_seat_results,
    rounds_unplayed,
    seat_results,
)
from tournaments.services.rounds import (
    add_stage,
    advance_bracket,
    bracket_results,
    delete_draft_round,
    generate_round,
    publish_round,
    regenerate_round,
    swap_seats,
)
from tournaments.services.staff import (
    accept_invitation,
    accounts_managed_here,
    assign_referee,
    assign_round_referees,
    create_referee,
    credentials_managed_here,
    decline_invitation,
    invite_staff,
    issue_token,
    remove_staff,
    revoke_token,
)

__all__ = [
    "SCORING_SETTINGS",
    "STATUS_ORDER",
    "BulkRegistrationError",
    "RankingChanged",
    "RoundsUnplayed",
    "TournamentConflict",
    "TournamentError",
    "accept_invitation",
    "accounts_managed_here",
    "add_stage",
    "advance_bracket",
    "assign_referee",
    "assign_round_referees",
    "bracket_results",
    "check_in",
    "check_in_stage",
    "create_referee",
    "create_tournament",
    "credentials_managed_here",
    "decline_invitation",
    "delete_draft_round",
    "finish_preview",
    "finish_stage",
    "generate_round",
    "invite_staff",
    "issue_token",
    "play_started",
    "preview_entrants",
    "publish_round",
    "record_did_not_play",
    "record_seat_results",
    "refresh_seat_results",
    "regenerate_round",
    "register_entrant",
    "register_entrants",
    "remove_staff",
    "revoke_token",
    "rounds_unplayed",
    "seat_results",
    "set_check_in",
    "set_seed",
    "swap_seats",
    "update_tournament",
    "withdraw",
]
