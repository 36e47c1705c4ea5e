"""Pages about players: search, a player's events, claiming and merging, merges asked
for and confirmed, entering an event yourself, checking in, and the organizer's side of
self-registration."""

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from accounts.permissions import allowed
from domain.i18n import told
from domain.pages import refusals_kept, refusals_said
from players import entries as entry_requests
from players import identity, registration, selectors, tables
from players.forms import RegistrationForm
from players.matching import NEW, candidate_token, look_up_all, similar_players, token_player
from players.models import ACTIVE, Application, ClaimCode, MergeRequest, Player, PlayerMerge
from scoring.bounds import ID_MAX, digits
from tournaments import services, suspensions
from tournaments.entries import LineProblem
from tournaments.models import Round, Tournament
from tournaments.services.entrants import choice_scope
from tournaments.views import managed_tournament

Status = Application.Status


def _player(pk: int) -> Player:
    player = Player.objects.filter(pk=pk).first()
    if player is None:
        merged = PlayerMerge.objects.filter(removed_id=pk).first()
        if merged is not None:
            raise _Moved(merged.kept_id)
        raise Http404("No such player.")
    return player


class _Moved(Exception):
    def __init__(self, pk: int):
        self.pk = pk


def search(request):
    """Find a player by name or club (accents and case aside)."""
    text = request.GET.get("q", "")[:120]
    found = list(selectors.search_players(text)) if text.strip() else []
    return render(request, "players/search.html", {"q": text, "players": found})


def player_page(request, pk: int):
    """A player's events: entered as whom, their placing and the games played."""
    try:
        player = _player(pk)
    except _Moved as moved:
        return redirect("player-page", pk=moved.pk)
    events = selectors.player_events(player, request.user)
    manages = allowed(request.user, "player.merge", player)
    own = selectors.own_player(request.user)
    given, duplicates = False, []
    if manages:
        # A code is shown once, when given: the page only says one exists.
        given = ClaimCode.objects.filter(player=player).exists()
        duplicates = similar_players(player)
    return render(
        request,
        "players/player.html",
        {
            "player": player,
            "events": events,
            "games": sum(line.games for line in events),
            "manages": manages,
            "given": given,
            "duplicates": duplicates,
            "is_me": own is not None and own.pk == player.pk,
            "may_ask": own is not None and own.pk != player.pk and not player.user_id,
            "suspensions": list(suspensions.visible_to(player, request.user)),
        },
    )


NOT_YOURS = gettext_lazy(
    "Only an organizer of every event this player entered may do that, and only while no "
    "account holds the player."
)


@login_required
@require_POST
def player_action(request, pk: int, action: str):
    """An organizer of every event of an unlinked player gives a claim code or merges
    another such player in; an account holder asks that this player be merged into
    theirs (``ask-merge``)."""
    player = get_object_or_404(Player, pk=pk)
    if action == "ask-merge":
        with refusals_said(request) as refused:
            identity.request_merge(player, by=request.user)
        if refused:
            return redirect("player-page", pk=player.pk)
        messages.success(
            request,
            gettext(
                "Asked: {name} becomes one player with yours once the organizers of their "
                "events confirm."
            ).format(name=player.display_name),
        )
        return redirect("account")
    if action not in ("claim-code", "merge"):
        raise Http404("No such action.")
    if not allowed(request.user, "player." + action.replace("-", "_"), player):
        raise PermissionDenied(NOT_YOURS)
    try:
        with refusals_said(request):
            if action == "claim-code":
                issued = identity.issue_claim_code(player, by=request.user)
                messages.success(
                    request,
                    gettext(
                        "Claim code for {name}: {code} (shown this once: write it down)."
                    ).format(name=player.display_name, code=issued.code),
                )
            else:
                other_id = digits(request.POST.get("other"), (1, ID_MAX))
                other = Player.objects.filter(pk=other_id).first() if other_id else None
                if other is None:
                    raise identity.PlayerError(gettext("Give the number of a player."), "other")
                name = other.display_name
                identity.merge_players(player, other, by=request.user)
                messages.success(
                    request,
                    gettext("{other} is now one player with {name}.").format(
                        other=name, name=player.display_name
                    ),
                )
    except PermissionDenied:
        messages.error(request, NOT_YOURS)
    return redirect("player-page", pk=player.pk)


@login_required
@require_POST
def confirm_merge(request, pk: int):
    """A superuser, or an organizer of the other player's events, confirms a merge."""
    asked = selectors.merge_requests(request.user).filter(pk=pk).first()
    if asked is None:
        raise Http404("No such merge.")
    try:
        with refusals_said(request):
            done = identity.confirm_merge(asked, by=request.user)
            if done.status == MergeRequest.Status.DONE:
                messages.success(
                    request,
                    gettext("{other} is now one player with {name}.").format(
                        other=done.other_name, name=done.keep.display_name
                    ),
                )
            else:
                messages.success(
                    request, gettext("Confirmed; the organizers of the other events confirm next.")
                )
    except PermissionDenied:
        messages.error(
            request, gettext("Only the organizers of the other player's events confirm.")
        )
    return redirect("account")


@login_required
@require_POST
def answer_entry_request(request, pk: int, answer: str):
    """A player accepts or declines an organizer's entry of them, from their account page."""
    if answer not in ("accept", "decline"):
        raise Http404("No such answer.")
    asked = entry_requests.request_for(request.user, pk)
    if asked is None:
        raise Http404("No such request.")
    with refusals_said(request):
        entry_requests.answer(asked, by=request.user, accept=answer == "accept")
        messages.success(
            request,
            gettext("Your entry in {name} is yours: its games count for you.").format(
                name=asked.tournament.name
            )
            if answer == "accept"
            else gettext("Entry declined: it stays with a player of your name, not you."),
        )
    return redirect("account")


@login_required
@require_POST
def unlink(request):
    """The signed-in user unlinks their account from its player."""
    player = selectors.own_player(request.user)
    if player is None:
        messages.error(request, gettext("Your account is not linked to a player."))
        return redirect("account")
    with refusals_said(request):
        identity.unlink_player(player, by=request.user)
        messages.success(
            request,
            gettext("Your account is no longer {name}'s.").format(name=player.display_name),
        )
    return redirect("account")


@login_required
@require_POST
def claim(request):
    """The signed-in user links their account to a player with the organizer's code."""
    with refusals_said(request):
        player = identity.claim_player(request.POST.get("code", ""), by=request.user)
        messages.success(
            request,
            gettext("Your account is now {name}'s: their events are yours.").format(
                name=player.display_name
            ),
        )
    return redirect("account")


# --- entering an event yourself --------------------------------------------------------


def _visible(request, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not allowed(request.user, "tournament.view", tournament):
        raise Http404("No such tournament.")
    return tournament


def _current_round(tournament: Tournament) -> Round | None:
    return (
        Round.objects.filter(stage__tournament=tournament)
        .exclude(status=Round.Status.DRAFT)
        .order_by("-published_at", "-pk")
        .first()
    )


def _mine(tournament: Tournament, user):
    if not user.is_authenticated:
        return None
    return (
        Application.objects.filter(tournament=tournament, status__in=ACTIVE)
        .filter(Q(user=user) | Q(partner_user=user))
        .select_related("player", "partner", "user", "partner_user", "entrant")
        .first()
    )


def entry_page(request, slug: str):
    """A player's own page of an event: enter, the partner's answer, the waiting list,
    check in, and their table once the round is published."""
    tournament = _visible(request, slug)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={request.path}")
        with refusals_said(request):
            messages.success(request, _entry_action(request, tournament))
        return redirect("self-register", slug=tournament.slug)
    return render(request, "players/entry.html", _entry_context(request, tournament))


def _entry_context(request, tournament: Tournament) -> dict:
    found = registration.registration_of(tournament)
    entrant = registration.own_entrant_in(tournament, request.user)
    current = _current_round(tournament) if entrant else None
    table = tables.my_table(current, entrant)
    return {
        "tournament": tournament,
        "registration": found,
        "open": registration.registration_open(tournament),
        "check_in_open": registration.check_in_open(tournament),
        "application": _mine(tournament, request.user),
        "entrant": entrant,
        "round": current,
        "table": table,
        "own_player": selectors.own_player(request.user),
        "entered": entered_count(tournament),
        "manages": allowed(request.user, "tournament.manage", tournament),
    }


def entered_count(tournament: Tournament) -> int:
    return tournament.entrants.filter(withdrawn=False).count()


def _entry_action(request, tournament: Tournament) -> str:
    action = request.POST.get("action", "")
    user = request.user
    if action == "enter":
        application = registration.enter(
            tournament,
            by=user,
            name=request.POST.get("name", ""),
            partner=request.POST.get("partner", ""),
            new_player=request.POST.get("new_player") == "1",
        )
        return _status_message(application)
    if action == "check-in":
        present = request.POST.get("present") != "0"
        entrant = registration.self_check_in(tournament, by=user, present=present)
        if entrant.checked_in:
            return gettext("You are checked in. Good luck!")
        return gettext("You are no longer checked in.")
    application = _mine(tournament, user)
    if application is None:
        raise identity.PlayerConflict(gettext("You have no entry in this event."), "tournament")
    if action in ("accept", "decline"):
        application = registration.answer_partner(
            application,
            by=user,
            accept=action == "accept",
            name=request.POST.get("name", ""),
            new_player=request.POST.get("new_player") == "1",
        )
        return _status_message(application)
    if action == "withdraw":
        registration.withdraw_entry(application, by=user)
        return gettext("Your entry is withdrawn.")
    raise identity.PlayerError(gettext("Choose what to do."), "action")


def _status_message(application: Application) -> str:
    return {
        Status.PARTNER: gettext("Your partner is asked; the entry goes on once they accept."),
        Status.APPROVAL: gettext("Your entry waits for the organizer's approval."),
        Status.WAITING: gettext("The event is full: you are on the waiting list."),
        Status.ENTERED: gettext("You are entered."),
        Status.DECLINED: gettext("You declined."),
    }.get(application.status, application.get_status_display())


# --- the organizer's side ----------------------------------------------------------------


@login_required
def manage_registration(request, slug: str):
    """Open registration (window, capacity, approval, check-in), answer entries, show the
    venue's check-in QR code."""
    tournament = managed_tournament(request, slug)
    found = registration.registration_of(tournament)
    form = RegistrationForm(tournament=tournament, registration=found)
    if request.method == "POST":
        action = request.POST.get("action", "save")
        with refusals_kept() as refused:
            if action == "save":
                form = RegistrationForm(request.POST, tournament=tournament)
                if form.is_valid():
                    registration.open_registration(tournament, by=request.user, **form.cleaned_data)
                    messages.success(request, gettext("Registration settings saved."))
                    return redirect("manage-registration", slug=slug)
            elif action == "close":
                registration.close_registration(tournament, by=request.user)
                messages.success(request, gettext("Self-registration is closed."))
                return redirect("manage-registration", slug=slug)
            elif action in ("approve", "decline"):
                application = _application(tournament, request.POST.get("application"))
                registration.decide(application, by=request.user, approve=action == "approve")
                messages.success(request, gettext("Done: {name}.").format(name=application.player))
                return redirect("manage-registration", slug=slug)
            else:
                raise Http404("No such action.")
        # Beside its field on the settings form; any other refusal as a message.
        if refused and form.is_bound and refused.error.field in form.fields:
            form.add_error(refused.error.field, refused.text)
        elif refused:
            messages.error(request, refused.text)
            return redirect("manage-registration", slug=slug)
    url = request.build_absolute_uri(reverse("self-check-in", args=[tournament.slug]))
    applications = (
        Application.objects.filter(tournament=tournament)
        .select_related("player", "partner", "user", "partner_user")
        .order_by("status", "queued_at", "created_at", "pk")
    )
    return render(
        request,
        "players/manage_registration.html",
        {
            "tournament": tournament,
            "registration": found,
            "form": form,
            "applications": [a for a in applications if a.status in ACTIVE],
            "check_in_url": url,
            "qr": segno.make(url, error="m").svg_inline(dark="#000", light="#fff", omitsize=True),
            "entered": entered_count(tournament),
            "zone": tournament.time_zone,
        },
    )


def _application(tournament: Tournament, value) -> Application:
    pk = digits(value, (1, ID_MAX))
    found = Application.objects.filter(tournament=tournament, pk=pk).first() if pk else None
    if found is None:
        raise identity.PlayerError(gettext("Choose an entry of this event."), "application")
    return found


def check_in_page(request, slug: str):
    """Where the venue's QR code leads: one button to check in (after signing in)."""
    tournament = _visible(request, slug)
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={request.path}")
    if request.method == "POST":
        with refusals_said(request):
            registration.self_check_in(tournament, by=request.user)
            messages.success(request, gettext("You are checked in. Good luck!"))
        return redirect("self-check-in", slug=tournament.slug)
    return render(request, "players/check_in.html", _entry_context(request, tournament))


# --- the paste preview -------------------------------------------------------------------


@login_required
@require_POST
def paste_preview(request, slug: str):
    """A pasted list line by line: each name's player (known, close to a known one, or
    new); the organizer chooses where a name could be a known player, then registers."""
    tournament = managed_tournament(request, slug)
    text = request.POST.get("text", "")
    choices = _posted_choices(request)
    if request.POST.get("confirm") == "1":
        with refusals_said(request):
            made = services.register_entrants(
                tournament, by=request.user, text=text, choices=choices
            )
            messages.success(
                request,
                ngettext(
                    "Registered {count} entrant.", "Registered {count} entrants.", len(made)
                ).format(count=len(made)),
            )
            return redirect("manage-tournament", slug=slug)
    with refusals_said(request) as refused:
        entries, problems = services.preview_entrants(tournament, text)
    if refused:
        return redirect("manage-tournament", slug=slug)
    people = [person for entry in entries for person in entry.people]
    found = iter(look_up_all(people, by=request.user))
    scope = choice_scope(tournament, request.user)
    lines = []
    for entry in entries:
        lines.append(
            {
                "entry": entry,
                "people": [_person(next(found), choices, scope) for _ in entry.people],
            }
        )
    return render(
        request,
        "players/paste_preview.html",
        {
            "tournament": tournament,
            "text": text,
            "lines": lines,
            "problems": [_problem(p) for p in problems],
            "choosing": any(p["lookup"].needs_choice for line in lines for p in line["people"]),
        },
    )


def _problem(problem: LineProblem) -> dict:
    return {"line": problem.line, "text": problem.text, "message": told(problem.message)}


def _person(lookup, choices: dict[str, int | str], scope: str) -> dict:
    """One name of the list: its candidates, each with the token that chooses it, and
    the choice already made (kept when the list is checked again)."""
    chosen = choices.get(lookup.key)
    chosen_id = NEW if chosen == NEW else token_player(chosen) if chosen else None
    return {
        "lookup": lookup,
        "field": "choice-" + lookup.key,
        "new": chosen == NEW,
        "offers": [
            {
                "player": candidate,
                "token": candidate_token(lookup.key, candidate.pk, scope),
                "chosen": chosen_id == candidate.pk,
            }
            for candidate in lookup.candidates
        ],
    }


def _posted_choices(request) -> dict[str, int | str]:
    """``choice-<key>`` fields: a candidate's token, or ``new``."""
    choices: dict[str, int | str] = {}
    for name, value in request.POST.items():
        if not name.startswith("choice-"):
            continue
        key = name[len("choice-") :]
        if value == "new":
            choices[key] = NEW
        elif value and len(value) <= 400:
            choices[key] = value
    return choices
