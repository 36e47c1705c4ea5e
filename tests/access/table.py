"""Who may use each route: the one table the access tests hold every URL pattern and every
API operation to.

Each route name maps its methods to the least a viewer must be for the answer to be theirs:

- ``public``: anyone, for what is visible (a public event, its published rounds);
- ``signed-in``: anyone signed in, on their own account or on a public event;
- ``self``: only the person the thing belongs to (their player, invitation, entry);
- ``staff``: the event's referees and organizers (or the game's referee);
- ``organizer``: the event's organizers;
- ``creator``: whoever made the series or ladder session;
- ``superuser``: Django's staff (the admin).

A write method a route does not list is nobody's: whoever may not read the route must be
refused it, and nothing may change for anyone (a page that answers a POST as it answers a
GET tells no more than its GET). A word parameter (an action, an export's kind) lists the
values to try; a parameter the world cannot fill says why under ``unfilled``; ``askers``
narrows who asks a route whose answer is the same for everyone.
"""

PUBLIC = "public"
SIGNED_IN = "signed-in"
SELF = "self"
STAFF = "staff"
ORGANIZER = "organizer"
CREATOR = "creator"
SUPERUSER = "superuser"
NOBODY = "nobody"

ANSWERS = ("accept", "decline")

ROUTES: dict[str, dict] = {
    # --- the site --------------------------------------------------------------------
    "home": {"GET": PUBLIC},
    "health": {"GET": PUBLIC},
    # Not found unless METRICS_TOKEN or METRICS_ALLOWED_ADDRESSES allow the scrape (unset
    # here); tests/ops/test_metrics.py asks it with them.
    "metrics": {},
    # The web app manifest is the same for everyone: one outsider asks it.
    "manifest": {"GET": PUBLIC, "askers": ("anonymous",)},
    # The schema is the code's, the same for everyone: one outsider asks it.
    "schema": {"GET": PUBLIC, "askers": ("anonymous",)},
    "api-docs": {"GET": PUBLIC},
    "api-root": {"GET": PUBLIC},
    "api-not-found": {},  # any other /api/ path: a 404 for everyone
    "login": {"GET": PUBLIC, "POST": PUBLIC},
    "logout": {"POST": PUBLIC},
    "choose-language": {"POST": PUBLIC},
    "account": {"GET": SIGNED_IN, "POST": SIGNED_IN},
    "unsubscribe": {"GET": PUBLIC, "POST": PUBLIC, "token": ["not-a-token"]},
    "role-leave": {"POST": SELF},
    # --- games and scoring -----------------------------------------------------------
    "game-list": {"GET": PUBLIC, "POST": SIGNED_IN},
    "game-detail": {"GET": PUBLIC},
    "game-hands": {"POST": STAFF},
    "game-hand": {"PUT": STAFF, "DELETE": STAFF},
    "game-hand-history": {"GET": PUBLIC},
    "game-events": {"POST": STAFF},
    "game-event": {"DELETE": STAFF},
    "game-reopen": {"POST": ORGANIZER},
    "game-disputes": {"GET": STAFF, "POST": STAFF},
    "game-dispute-resolve": {"POST": ORGANIZER},
    "game-forfeit": {"POST": ORGANIZER},
    "game-deductions": {"POST": ORGANIZER},
    "game-leader": {"POST": STAFF},
    "game-redeal": {"POST": STAFF},
    "game-audit": {"GET": STAFF},
    "ruleset-list": {"GET": PUBLIC},
    "ruleset-detail": {"GET": PUBLIC, "key": ["cutthroat"]},
    "ruleset-score": {"POST": PUBLIC, "key": ["cutthroat"]},
    "game-page": {"GET": PUBLIC},
    "game-sheet": {"GET": PUBLIC},
    "my-tables": {"GET": SIGNED_IN},
    "referee-worker": {"GET": PUBLIC},
    "score-game": {"GET": STAFF},
    "score-preview": {"POST": STAFF},
    "score-hand": {"POST": STAFF},
    "score-event": {"POST": STAFF},
    "score-undo": {"POST": STAFF},
    "score-correct": {"GET": STAFF, "POST": STAFF},
    "score-void": {"POST": STAFF},
    "dispute-photo": {"GET": STAFF},
    "score-officiate": {
        "POST": STAFF,
        "action": ["leader", "redeal", "dispute", "forfeit", "deduct", "penalty"],
    },
    "game-reopen-page": {"POST": ORGANIZER},
    # --- tournaments -----------------------------------------------------------------
    "tournament-list": {"GET": PUBLIC, "POST": SIGNED_IN},
    "tournament-detail": {"GET": PUBLIC, "PATCH": ORGANIZER},
    "tournament-entrants": {"GET": PUBLIC, "POST": ORGANIZER},
    "tournament-entrant-disqualify": {"POST": ORGANIZER},
    "tournament-audit": {"GET": ORGANIZER},
    "tournament-archive": {"GET": ORGANIZER},
    "tournament-disputes": {"GET": ORGANIZER},
    "tournament-entrant-action": {
        "POST": ORGANIZER,
        "action": ["check-in", "check-out", "withdraw"],
    },
    "tournament-stages": {"GET": PUBLIC, "POST": ORGANIZER},
    "tournament-stage-finish": {"GET": ORGANIZER, "POST": ORGANIZER},
    "tournament-stage-check-in": {"POST": ORGANIZER},
    "tournament-rounds": {"GET": PUBLIC, "POST": ORGANIZER},
    "tournament-round": {"GET": PUBLIC},
    "tournament-round-publish": {"POST": ORGANIZER},
    "tournament-round-clock": {"POST": ORGANIZER},
    "manage-stage-clock": {"POST": ORGANIZER},
    "manage-round-clock": {"POST": ORGANIZER},
    "manage-suspension": {"GET": ORGANIZER, "POST": ORGANIZER},
    "tournament-entrant-suspensions": {"GET": ORGANIZER, "POST": ORGANIZER},
    "tournament-stage-round-clock": {"GET": ORGANIZER, "POST": ORGANIZER},
    "tournament-round-swap": {"POST": ORGANIZER},
    "tournament-round-referees": {"POST": ORGANIZER},
    "tournament-standings": {"GET": PUBLIC},
    "tournament-export-api": {"GET": PUBLIC, "kind": ["standings", "results"]},
    "tournament-staff": {"GET": ORGANIZER, "POST": ORGANIZER},
    "my-invitations": {"GET": SIGNED_IN},
    "invitation-answer-api": {"POST": SELF, "answer": ANSWERS},
    "my-token": {"POST": SIGNED_IN, "DELETE": SIGNED_IN},
    "match-detail": {"GET": PUBLIC},
    "match-referee": {"POST": ORGANIZER},
    "match-did-not-play": {"POST": ORGANIZER},
    "tournament-page": {"GET": PUBLIC},
    "tournament-live": {"GET": PUBLIC},
    "tournament-events": {"GET": PUBLIC},
    "entrant-page": {"GET": PUBLIC},
    "tournament-screen": {"GET": PUBLIC},
    "stage-schedule": {"GET": PUBLIC},
    "print-cards": {"GET": ORGANIZER},
    "print-sheets": {"GET": ORGANIZER},
    "tournament-export": {"GET": PUBLIC, "kind": ["standings", "results"]},
    "invitation-answer": {"POST": SELF, "answer": ANSWERS},
    "my-tournaments": {"GET": SIGNED_IN},
    "new-tournament": {"GET": SIGNED_IN, "POST": SIGNED_IN},
    "manage-tournament": {"GET": ORGANIZER},
    "manage-audit": {"GET": ORGANIZER},
    "manage-dispute-resolve": {"POST": ORGANIZER},
    "manage-disqualify": {"POST": ORGANIZER},
    "tournament-settings": {"GET": ORGANIZER, "POST": ORGANIZER},
    "add-stage": {"GET": ORGANIZER, "POST": ORGANIZER},
    "finish-stage": {"GET": ORGANIZER, "POST": ORGANIZER},
    "manage-action": {
        "POST": ORGANIZER,
        "action": [
            "status",
            "register",
            "add-entrant",
            "check-in",
            "withdraw",
            "seed",
            "generate",
            "publish",
            "swap",
            "assign",
            "delete-round",
            "regenerate-round",
            "create-referee",
            "token",
            "invite",
            "withdraw-invitation",
            "remove-staff",
        ],
    },
    "manage-check-in": {"GET": ORGANIZER, "POST": ORGANIZER},
    "manage-did-not-play": {"POST": ORGANIZER},
    # --- players ---------------------------------------------------------------------
    "player-list": {"GET": PUBLIC},
    "player-detail": {"GET": PUBLIC},
    "player-merge": {"POST": ORGANIZER},
    "player-claim-code": {"POST": ORGANIZER},
    "account-claim": {"POST": SIGNED_IN},
    "account-entries": {"GET": SIGNED_IN},
    "account-identity": {"GET": SIGNED_IN},
    "account-entry-requests": {"GET": SIGNED_IN},
    "entry-request-answer-api": {"POST": SELF, "answer": ANSWERS},
    "account-unlink": {"POST": SIGNED_IN},
    "merge-request-list": {"GET": SIGNED_IN, "POST": SIGNED_IN},
    "merge-request-confirm": {
        "POST": SELF,
    },
    "tournament-registration": {"GET": PUBLIC, "PUT": ORGANIZER, "DELETE": ORGANIZER},
    "tournament-applications": {"GET": SIGNED_IN, "POST": SIGNED_IN},
    "tournament-self-check-in": {"POST": SIGNED_IN},
    "tournament-entrants-preview": {"POST": ORGANIZER},
    "application-action": {
        "POST": SELF,
        "action": ["accept", "decline", "approve", "reject", "withdraw"],
    },
    "player-search": {"GET": PUBLIC},
    "player-claim": {"GET": SIGNED_IN, "POST": SIGNED_IN},
    "player-unlink": {"POST": SIGNED_IN},
    "merge-request-confirm-page": {
        "POST": SELF,
    },
    "entry-request-answer": {"POST": SELF, "answer": ANSWERS},
    "player-page": {"GET": PUBLIC},
    "player-action": {
        # Asking to merge is a request the other player's account must confirm.
        "POST": {"claim-code": ORGANIZER, "merge": ORGANIZER, "ask-merge": SIGNED_IN},
        "action": ["claim-code", "merge", "ask-merge"],
    },
    "self-register": {"GET": PUBLIC, "POST": SIGNED_IN},
    "self-check-in": {"GET": PUBLIC, "POST": SIGNED_IN},
    "manage-registration": {"GET": ORGANIZER, "POST": ORGANIZER},
    "paste-preview": {"GET": ORGANIZER, "POST": ORGANIZER},
    # --- the circuit: series, ratings, ladders ---------------------------------------
    "series-list-api": {"GET": PUBLIC, "POST": SIGNED_IN},
    "series-detail-api": {"GET": PUBLIC},
    "series-next-event-api": {"POST": CREATOR},
    "series-standings-api": {"GET": PUBLIC},
    "series-export-api": {"GET": PUBLIC},
    "leaderboard-api": {"GET": PUBLIC, "pool": ["individual", "partners"]},
    "player-ratings-api": {"GET": PUBLIC},
    "seed-by-rating-api": {"POST": ORGANIZER},
    "ladder-list-api": {"GET": PUBLIC, "POST": SIGNED_IN},
    "ladder-detail-api": {"GET": PUBLIC},
    "ladder-audit-api": {"GET": CREATOR},
    "ladder-action-api": {
        "POST": CREATOR,
        "action": ["check-in", "check-out", "form", "close"],
    },
    "account-ladders-api": {"GET": SIGNED_IN},
    "ladder-request-answer-api": {
        "POST": SELF,
        "answer": ANSWERS,
    },
    "series-list": {"GET": PUBLIC},
    "new-series": {"GET": SIGNED_IN, "POST": SIGNED_IN},
    "series-page": {"GET": PUBLIC},
    "series-next-event": {"POST": CREATOR},
    "series-export": {"GET": PUBLIC},
    "leaderboard": {"GET": PUBLIC},
    "leaderboard-pool": {"GET": PUBLIC, "pool": ["individual", "partners"]},
    "ladder-list": {"GET": PUBLIC},
    "new-ladder": {"GET": SIGNED_IN, "POST": SIGNED_IN},
    "ladder-page": {"GET": PUBLIC},
    "ladder-floor": {"GET": PUBLIC},
    "ladder-action": {"POST": CREATOR, "action": ["check-in", "check-out", "form", "close"]},
    "ladder-request-answer": {
        "POST": SELF,
        "answer": ANSWERS,
    },
    "seed-by-rating": {"GET": ORGANIZER, "POST": ORGANIZER},
}

# Django's admin: every page is its staff's (is_staff), whatever the model; the staff-only
# check comes before any object is looked up, so any object id tells the same.
ADMIN = {
    "GET": SUPERUSER,
    "POST": SUPERUSER,
    "object_id": ["1"],
    "app_label": ["accounts"],
    "content_type_id": ["1"],
    "url": ["nowhere/"],
    "id": ["1"],
}
ADMIN_PUBLIC = {
    "admin:login": {"GET": PUBLIC, "POST": PUBLIC},
    # Signing out is anyone's; Django's admin sends a GET on to its login page.
    "admin:logout": {"GET": PUBLIC, "POST": PUBLIC},
}


def entry(name: str) -> dict | None:
    """The table's entry for a route name, or None when it has none."""
    if name in ROUTES:
        return ROUTES[name]
    if name.startswith(("admin:", "admin/")):
        return ADMIN_PUBLIC.get(name, ADMIN)
    return None
