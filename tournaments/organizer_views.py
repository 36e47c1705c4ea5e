"""Organizer pages: create a tournament from a preset and run it from one page.

Every action posts to ``manage/<action>/``, goes through the same service as the API,
and comes back to the page with a message saying what it did (or why it did not).
"""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.views.decorators.http import require_POST

from accounts.permissions import allowed
from domain.i18n import told
from domain.pages import refusals_in, refusals_kept, refusals_said
from scoring.bounds import ID_MAX, digits
from scoring.models import Game
from scoring.rulesets import PRESETS
from tournaments import clock, services
from tournaments.bounds import SEED_RANGE
from tournaments.forms import (
    RULE_FIELDS,
    FinishForm,
    SettingsForm,
    StageForm,
    TournamentForm,
    preset_lines,
)
from tournaments.models import (
    Entrant,
    Invitation,
    Match,
    Round,
    Staff,
    Stage,
    Tournament,
)
from tournaments.read import selectors
from tournaments.read.standings import METRICS
from tournaments.services import forfeits
from tournaments.views import format_unless_named, managed_tournament

LONG_GAME = timedelta(minutes=75)


@login_required
def new_tournament(request):
    """Step one: choose a preset; step two: its values filled in, changed where needed."""
    if not allowed(request.user, "tournament.create"):
        raise PermissionDenied(gettext("Sign in to create a tournament."))
    preset = request.GET.get("preset") or request.POST.get("preset")
    if preset not in PRESETS:
        return render(
            request, "tournaments/organize/choose_preset.html", {"presets": preset_lines()}
        )
    form = TournamentForm(request.POST or None, preset=preset)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        with refusals_kept() as refused:
            tournament = services.create_tournament_with_stage(
                by=request.user,
                name=data["name"],
                ruleset_key=preset,
                table_size=data["table_size"],
                overrides=form.overrides(),
                public=data["public"],
                tiebreak_order=data["tiebreak_order"],
                stage_name=data["stage_name"],
                stage_format=data["stage_format"],
                stage_settings=form.settings(),
            )
        # Above the form: the stage's fields and the event's share names.
        if refused:
            form.add_error(None, refused.text)
        else:
            messages.success(
                request,
                gettext("Created {name}. Now add its entrants.").format(name=tournament.name),
            )
            return redirect("manage-tournament", slug=tournament.slug)
    metrics = [{"label": gettext(m.label), "explain": gettext(m.explain)} for m in METRICS.values()]
    return render(
        request,
        "tournaments/organize/new.html",
        {
            "form": form,
            "preset": PRESETS[preset],
            "description": gettext(PRESETS[preset].description),
            "summary": form.rules,
            "metrics": metrics,
        },
        status=400 if form.errors else 200,
    )


@login_required
def my_tournaments(request):
    tournaments = Tournament.objects.filter(
        staff__user=request.user, staff__role=Staff.Role.ORGANIZER
    ).order_by("-updated_at")
    return render(request, "tournaments/organize/mine.html", {"tournaments": tournaments})


def _attention(stage: Stage | None) -> list[dict]:
    """Tables needing a look: flagged after a correction, running long, without a referee."""
    if stage is None:
        return []
    found = []
    now = timezone.now()
    matches = (
        Match.objects.filter(round__stage=stage, bye=False)
        .exclude(round__status=Round.Status.DRAFT)
        .filter(
            Q(needs_attention=True)
            | Q(referee=None, game__status__in=[Game.Status.SCHEDULED, Game.Status.IN_PROGRESS])
            | Q(game__status=Game.Status.IN_PROGRESS, game__started_at__lt=now - LONG_GAME)
        )
        .select_related("round", "game")
        .order_by("round__number", "table_number")
    )
    for match in matches:
        reasons = []
        if match.needs_attention:
            reasons.append(match.attention_reason or gettext("flagged"))
        if match.referee_id is None and match.game and not match.game.is_finished:
            reasons.append(gettext("no referee"))
        game = match.game
        if game and game.status == Game.Status.IN_PROGRESS and game.started_at:
            running = now - game.started_at
            if running > LONG_GAME:
                reasons.append(
                    gettext("running {minutes} min").format(
                        minutes=int(running.total_seconds() // 60)
                    )
                )
        found.append({"match": match, "reasons": reasons})
    return found


@login_required
def manage(request, slug: str):
    tournament = managed_tournament(request, slug)
    stages = list(tournament.stages.all())
    stage = selectors.pick_stage(request.GET.get("stage"), stages)
    rounds = selectors.rounds_of(stage, include_drafts=True) if stage else []
    current = selectors.pick_round(rounds, request.GET.get("round"))
    tables = selectors.tables_of(current, tournament) if current else []
    entrants = entrants_context(tournament)["entrants"]
    referees = list(
        get_user_model()
        .objects.filter(tournament_roles__tournament=tournament)
        .distinct()
        .order_by("username")
    )
    staff = list(
        Staff.objects.filter(tournament=tournament).select_related("user").order_by("role", "pk")
    )
    managed = services.accounts_managed_here(tournament)
    for member in staff:
        member.credentials_here = member.user_id in managed
    invitations = list(tournament.invitations.select_related("user"))
    return render(
        request,
        "tournaments/organize/manage.html",
        {
            "tournament": tournament,
            "stages": stages,
            "stage": stage,
            "rounds": rounds,
            "round": current,
            "tables": tables,
            "entrants": entrants,
            "active_entrants": [e for e in entrants if not e.withdrawn],
            "referees": referees,
            "staff": staff,
            "invitations": invitations,
            "roles": Staff.Role.choices,
            "attention": _attention(stage),
            "statuses": Tournament.Status.choices,
            "stage_format": format_unless_named(stage),
            "stage_options": stage_options(stage) if stage else [],
            "stage_form": StageForm(),
            "paste": request.session.pop("paste_text", ""),
            "paste_problems": request.session.pop("paste_problems", []),
            "new_credentials": request.session.pop("new_credentials", None),
        },
    )


def stage_options(stage: Stage) -> list[str]:
    """A stage's options in words, for its line on the manage page."""
    settings = stage.settings or {}
    said = []
    if settings.get("rounds"):
        said.append(
            ngettext("{count} round", "{count} rounds", settings["rounds"]).format(
                count=settings["rounds"]
            )
        )
    if settings.get("pools"):
        said.append(
            ngettext("{count} pool", "{count} pools", settings["pools"]).format(
                count=settings["pools"]
            )
        )
    if settings.get("advance"):
        if stage.format == "pools":
            said.append(
                gettext("top {count} of each pool go through").format(count=settings["advance"])
            )
        else:
            said.append(
                gettext("top {count} of each table go through").format(count=settings["advance"])
            )
    if settings.get("third_place"):
        said.append(gettext("third-place match"))
    if stage.format == "double_elimination":
        said.append(
            gettext("grand final reset")
            if settings.get("grand_final_reset", True)
            else gettext("no grand final reset")
        )
    return said


# --- actions ------------------------------------------------------------------------------


def _chosen(queryset, value, message: str, field: str):
    """The row of ``queryset`` whose id the form sent, or the organizer's error."""
    pk = digits(value, (1, ID_MAX))
    row = queryset.filter(pk=pk).first() if pk is not None else None
    if row is None:
        raise services.TournamentError(message, field)
    return row


def _entrant(tournament: Tournament, value) -> Entrant:
    return _chosen(
        Entrant.objects.filter(tournament=tournament),
        value,
        gettext("Choose an entrant of this tournament."),
        "entrant",
    )


def _round(tournament: Tournament, value) -> Round:
    return _chosen(
        Round.objects.filter(stage__tournament=tournament),
        value,
        gettext("Choose a round of this tournament."),
        "round",
    )


def _stage(tournament: Tournament, value) -> Stage:
    return _chosen(
        Stage.objects.filter(tournament=tournament),
        value,
        gettext("Choose a stage of this tournament."),
        "stage",
    )


def _staff_user(tournament: Tournament, value):
    user = get_user_model().objects.filter(pk=digits(value, (1, ID_MAX)) or 0).first()
    if user is None or not Staff.objects.filter(tournament=tournament, user=user).exists():
        raise services.TournamentError(gettext("Choose one of this tournament's staff."), "user")
    return user


def _do_status(request, tournament):
    services.update_tournament(tournament, by=request.user, status=request.POST.get("status"))
    return gettext("The tournament is now {status}.").format(
        status=tournament.get_status_display().lower()
    )


def _do_register(request, tournament):
    text = request.POST.get("text", "")
    try:
        created = services.register_entrants(tournament, by=request.user, text=text)
    except services.BulkRegistrationError as error:
        request.session["paste_text"] = text
        request.session["paste_problems"] = [
            {"line": p.line, "text": p.text, "message": told(p.message)} for p in error.problems
        ]
        raise services.TournamentError(
            ngettext(
                "Nothing was registered: {count} line needs fixing.",
                "Nothing was registered: {count} lines need fixing.",
                len(error.problems),
            ).format(count=len(error.problems))
        ) from error
    return ngettext(
        "Registered {count} entrant.", "Registered {count} entrants.", len(created)
    ).format(count=len(created))


def _do_add_entrant(request, tournament):
    entrant = services.register_entrant(
        tournament,
        by=request.user,
        name=request.POST.get("name", ""),
        partner_name=request.POST.get("partner_name", ""),
    )
    return gettext("Registered {name} (seed {seed}).").format(name=entrant.name, seed=entrant.seed)


def _do_check_in(request, tournament):
    entrant = _entrant(tournament, request.POST.get("entrant"))
    present = request.POST.get("present") != "0"
    override = request.POST.get("override") == "1"
    services.check_in(entrant, by=request.user, checked_in=present, override=override)
    return (gettext("{name} checked in.") if present else gettext("{name} marked absent.")).format(
        name=entrant.name
    )


def _do_withdraw(request, tournament):
    entrant = _entrant(tournament, request.POST.get("entrant"))
    if request.POST.get("confirm") != "1":
        # Nothing changes until the organizer has seen what it does and confirmed it.
        raise services.TournamentError(
            " ".join(told(line) for line in forfeits.withdrawal_effect(entrant)), "confirm"
        )
    chosen = request.POST.get("unstarted") or None
    substitute = None
    if chosen == forfeits.RESEAT:
        substitute = _entrant(tournament, request.POST.get("substitute"))
    entrant = services.withdraw(entrant, by=request.user, unstarted=chosen, substitute=substitute)
    if chosen == forfeits.PLAY_ON:
        return gettext("{name} withdrew; their table plays on without them.").format(
            name=entrant.name
        )
    if chosen == forfeits.RESEAT:
        return gettext("{name} withdrew; {name2} takes their seat.").format(
            name=entrant.name, name2=substitute.name
        )
    return gettext("{name} withdrew; later rounds leave them out.").format(name=entrant.name)


def leaving(tournament: Tournament) -> dict[int, dict]:
    """For each entrant at a table not finished: what withdrawing them does, and the
    choices at a table not started, for the confirmation on the manage page."""
    seated = (
        tournament.entrants.filter(
            withdrawn=False,
            match_seats__did_not_play="",
            match_seats__match__game__status__in=[
                Game.Status.SCHEDULED,
                Game.Status.IN_PROGRESS,
            ],
        )
        .exclude(match_seats__round__status=Round.Status.DRAFT)
        .distinct()
    )
    found = {}
    for entrant in seated:
        unstarted = forfeits.unstarted_seats(entrant)
        seat = unstarted[0] if len(unstarted) == 1 else None
        options = forfeits.leaving_options(seat) if seat else [forfeits.FORFEIT][: len(unstarted)]
        found[entrant.pk] = {
            "effect": [told(line) for line in forfeits.withdrawal_effect(entrant)],
            "table": seat.match.table_number if seat else None,
            "fewer": seat.match.seats.count() - 1 if seat else None,
            "options": options,
            "substitutes": forfeits.substitutes(seat) if forfeits.RESEAT in options else [],
        }
    return found


def _number(request, name: str, bounds: tuple[int, int], message: str) -> int | None:
    """The whole number the form sent as ``name`` (None when left blank), or the
    organizer's error: a typed number is read only inside its bounds."""
    text = request.POST.get(name, "").strip()
    if not text:
        return None
    number = digits(text, bounds)
    if number is None:
        raise services.TournamentError(message.format(low=bounds[0], high=bounds[1]), name)
    return number


def _do_seed(request, tournament):
    entrant = _entrant(tournament, request.POST.get("entrant"))
    message = gettext("A seed is a whole number from {low} to {high}.")
    seed = _number(request, "seed", SEED_RANGE, message)
    if seed is None:
        raise services.TournamentError(message.format(low=SEED_RANGE[0], high=SEED_RANGE[1]))
    services.set_seed(entrant, by=request.user, seed=seed)
    return gettext("{name} is now seed {value}.").format(name=entrant.name, value=seed)


def _do_generate(request, tournament):
    stage = _stage(tournament, request.POST.get("stage"))
    round_ = services.generate_round(stage, by=request.user)
    flags = len(round_.flags or [])
    tables = round_.matches.filter(bye=False).count()
    byes = round_.matches.filter(bye=True).count()
    said = [
        ngettext(
            "Round {number} generated as a draft with {tables} table.",
            "Round {number} generated as a draft with {tables} tables.",
            tables,
        ).format(number=round_.number, tables=tables)
    ]
    if byes:
        said.append(
            ngettext("{byes} sits out with a bye.", "{byes} sit out with a bye.", byes).format(
                byes=byes
            )
        )
    if flags:
        said.append(
            ngettext(
                "The pairing left {flags} note.", "The pairing left {flags} notes.", flags
            ).format(flags=flags)
        )
    said.append(gettext("Review it, then publish."))
    return " ".join(said)


def _do_publish(request, tournament):
    round_ = services.publish_round(_round(tournament, request.POST.get("round")), by=request.user)
    return gettext("Round {number} is published: players can see their tables.").format(
        number=round_.number
    )


def _do_delete_round(request, tournament):
    round_ = _round(tournament, request.POST.get("round"))
    services.delete_draft_round(round_, by=request.user)
    return gettext("Draft round {number} deleted; nothing of it was published.").format(
        number=round_.number
    )


def _do_regenerate_round(request, tournament):
    round_ = services.regenerate_round(
        _round(tournament, request.POST.get("round")), by=request.user
    )
    return gettext("Round {number} paired again, still a draft. Review it, then publish.").format(
        number=round_.number
    )


def _do_swap(request, tournament):
    round_ = _round(tournament, request.POST.get("round"))
    first = _entrant(tournament, request.POST.get("first"))
    second = _entrant(tournament, request.POST.get("second"))
    services.swap_seats(round_, first, second, by=request.user)
    return gettext("{name} and {name2} swapped seats in round {number}.").format(
        name=first.name, name2=second.name, number=round_.number
    )


def _do_assign(request, tournament):
    # An empty choice leaves the table (or every table) without a referee.
    chosen = request.POST.get("referee") or ""
    referee = _staff_user(tournament, chosen) if chosen.strip() else None
    if request.POST.get("match") == "all":
        round_ = _round(tournament, request.POST.get("round"))
        tables = list(round_.matches.filter(bye=False).values_list("table_number", flat=True))
        services.assign_round_referees(round_, dict.fromkeys(tables, referee), by=request.user)
        if referee is None:
            return gettext("No table of round {number} has a referee now.").format(
                number=round_.number
            )
        return gettext("{username} referees all {matches} tables of round {number}.").format(
            username=referee.username, matches=len(tables), number=round_.number
        )
    match = get_object_or_404(
        Match.objects.select_related("round"),
        pk=digits(request.POST.get("match"), (1, ID_MAX)) or 0,
        round__stage__tournament=tournament,
    )
    services.assign_round_referees(match.round, {match.table_number: referee}, by=request.user)
    if referee is None:
        return gettext("Table {table_number} has no referee now.").format(
            table_number=match.table_number
        )
    return gettext("{username} referees table {table_number}.").format(
        username=referee.username, table_number=match.table_number
    )


def _do_create_referee(request, tournament):
    user, password = services.create_referee(
        tournament, by=request.user, username=request.POST.get("username", "")
    )
    token = services.issue_token(tournament, user, by=request.user)
    request.session["new_credentials"] = {
        "username": user.username,
        "password": password,
        "token": token,
    }
    return gettext(
        "Created referee {username}: hand over the login shown below (shown once)."
    ).format(username=user.username)


def _do_token(request, tournament):
    user = _staff_user(tournament, request.POST.get("user"))
    # The service refuses any account this event did not create (see credentials_managed_here).
    if request.POST.get("revoke"):
        had = services.revoke_token(tournament, user, by=request.user)
        return (
            gettext("{username}'s token revoked.").format(username=user.username)
            if had
            else gettext("{username} had no token.").format(username=user.username)
        )
    token = services.issue_token(tournament, user, by=request.user, rotate=True)
    request.session["new_credentials"] = {"username": user.username, "token": token}
    return gettext("New API token for {username} (the old one no longer works).").format(
        username=user.username
    )


def _do_invite(request, tournament):
    invitation = services.invite_staff(
        tournament,
        by=request.user,
        username=request.POST.get("username", ""),
        role=request.POST.get("role", ""),
    )
    return gettext(
        "{username} is invited as {role}; the role is theirs once they accept it."
    ).format(username=invitation.user.username, role=invitation.get_role_display().lower())


def _do_withdraw_invitation(request, tournament):
    invitation = _chosen(
        Invitation.objects.filter(tournament=tournament).select_related("user"),
        request.POST.get("invitation"),
        gettext("Choose an invitation of this tournament."),
        "invitation",
    )
    services.decline_invitation(invitation, by=request.user)
    return gettext("The invitation to {username} is withdrawn.").format(
        username=invitation.user.username
    )


def _do_remove_staff(request, tournament):
    member = _chosen(
        Staff.objects.filter(tournament=tournament).select_related("user"),
        request.POST.get("staff"),
        gettext("Choose one of this tournament's staff."),
        "staff",
    )
    services.remove_staff(tournament, member.user, by=request.user, role=member.role)
    return gettext("{username} is no longer {role} here.").format(
        username=member.user.username, role=member.get_role_display().lower()
    )


ACTIONS = {
    "status": _do_status,
    "register": _do_register,
    "add-entrant": _do_add_entrant,
    "check-in": _do_check_in,
    "withdraw": _do_withdraw,
    "seed": _do_seed,
    "generate": _do_generate,
    "publish": _do_publish,
    "swap": _do_swap,
    "assign": _do_assign,
    "delete-round": _do_delete_round,
    "regenerate-round": _do_regenerate_round,
    "create-referee": _do_create_referee,
    "token": _do_token,
    "invite": _do_invite,
    "withdraw-invitation": _do_withdraw_invitation,
    "remove-staff": _do_remove_staff,
}


# Row actions answered in place, so the organizer stays on the row they acted on.
IN_PLACE = {"check-in", "withdraw"}


def _act_in_place(request, tournament: Tournament, handler):
    """Run a row action and answer with the entrants list only, saying what it did."""
    said = ""
    with refusals_kept() as refused:
        said = handler(request, tournament)
    said, failed = refused.text or said, bool(refused)
    # htmx swaps only successful answers: a refusal is shown in the list, on its row.
    acted = digits(request.POST.get("entrant"), (1, ID_MAX))
    # The event-day panel of the stage and round the page shows counts them too.
    query = parse_qs(urlsplit(request.htmx.current_url or "").query)
    stages = list(tournament.stages.all())
    stage = selectors.pick_stage((query.get("stage") or [None])[0], stages)
    rounds = selectors.rounds_of(stage, include_drafts=True) if stage else []
    return render(
        request,
        "tournaments/organize/_entrants.html",
        {
            **entrants_context(tournament),
            "said": said,
            "failed": failed,
            "acted": acted,
            "in_place": True,
            "day_stage": stage,
            "day_round": selectors.pick_round(rounds, (query.get("round") or [None])[0]),
        },
    )


def entrants_context(tournament: Tournament) -> dict:
    """What the manage page's entrants list shows."""
    entrants = list(tournament.entrants.order_by("seed"))
    found = leaving(tournament)
    for entrant in entrants:
        entrant.leaving = found.get(entrant.pk)
    return {
        "tournament": tournament,
        "entrants": entrants,
        "active_entrants": [e for e in entrants if not e.withdrawn],
        "rounds": Round.objects.filter(stage__tournament=tournament).exists(),
    }


@login_required
@require_POST
def act(request, slug: str, action: str):
    tournament = managed_tournament(request, slug)
    handler = ACTIONS.get(action)
    if handler is None:
        raise Http404("No such action.")
    if request.htmx and action in IN_PLACE:
        return _act_in_place(request, tournament, handler)
    with refusals_said(request) as refused:
        messages.success(request, handler(request, tournament))
    if refused and action == "register":
        request.session["paste_text"] = request.POST.get("text", "")
    back = reverse("manage-tournament", args=[tournament.slug])
    anchor = request.POST.get("back", "")
    back += f"?{anchor}" if anchor.startswith(("stage=", "round=")) else ""
    row = digits(request.POST.get("entrant"), (1, ID_MAX)) if action in IN_PLACE else None
    return redirect(back + (f"#entrant-{row}" if row else ""))


@login_required
@require_POST
def answer_invitation(request, pk: int, answer: str):
    """The invited user accepts or declines a role offered to them."""
    invitation = Invitation.objects.filter(pk=pk, user=request.user).first()
    if invitation is None or answer not in ("accept", "decline"):
        raise Http404("No such invitation.")
    name = invitation.tournament.name
    # Answered from the referee's page, the answer comes back there.
    back = "my-tables" if request.POST.get("back") == "my-tables" else "account"
    with refusals_said(request) as refused:
        if answer == "decline":
            services.decline_invitation(invitation, by=request.user)
        else:
            staff = services.accept_invitation(invitation, by=request.user)
    if refused:  # no longer open to this account: said, nothing changed
        return redirect(back)
    if answer == "decline":
        messages.success(request, gettext("You declined the role in {name}.").format(name=name))
        return redirect(back)
    messages.success(
        request,
        gettext("You are now {role} of {name}.").format(
            role=staff.get_role_display().lower(), name=name
        ),
    )
    if staff.role == Staff.Role.ORGANIZER:
        return redirect("manage-tournament", slug=invitation.tournament.slug)
    return redirect("my-tables")


# --- pages of their own: a form that answers in its fields ---------------------------------


def _locked(tournament: Tournament) -> dict[str, bool]:
    """Which settings can no longer change: the rules once a round is paired, how the
    standings count once the first game has started."""
    return {
        "rules": Round.objects.filter(stage__tournament=tournament).exists(),
        "standings": services.play_started(tournament),
    }


@login_required
def tournament_settings(request, slug: str):
    """The event's settings on one form; the rules and how the standings count are
    editable until play makes them fixed."""
    tournament = managed_tournament(request, slug)
    locked = _locked(tournament)
    # The zone menu starts with the countries of this organizer's events and browser.
    zones = Tournament.objects.filter(staff__user=request.user, staff__role=Staff.Role.ORGANIZER)
    countries = clock.countries_near(
        zones=[tournament.time_zone, *zones.values_list("time_zone", flat=True).distinct()[:20]],
        accept_language=request.META.get("HTTP_ACCEPT_LANGUAGE", ""),
    )
    form = SettingsForm(request.POST or None, tournament=tournament, countries=countries)
    rules = ["table_size", *RULE_FIELDS]
    counting = ["bye_policy", *(f.name for f in form.tiebreak_fields())]
    counting += [f.name for f in form.placement_fields()]
    for name in (rules if locked["rules"] else []) + (counting if locked["standings"] else []):
        form.fields[name].disabled = True
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        changes = {name: data[name] for name in ("name", "public", "time_zone", "include_live")}
        if not locked["standings"]:
            changes |= {
                "tiebreak_order": data["tiebreak_order"],
                "placement_points": form.placement_points(),
                "bye_policy": data["bye_policy"],
            }
        if not locked["rules"]:
            changes |= {"table_size": data["table_size"], "overrides": form.overrides()}
        with refusals_in(form):
            services.update_tournament(tournament, by=request.user, **changes)
            messages.success(request, gettext("Settings saved."))
            return redirect("manage-tournament", slug=tournament.slug)
    metrics = [{"label": gettext(m.label), "explain": gettext(m.explain)} for m in METRICS.values()]
    return render(
        request,
        "tournaments/organize/settings.html",
        {
            "tournament": tournament,
            "form": form,
            "locked": locked,
            "metrics": metrics,
            "now": timezone.now(),
        },
        status=400 if form.errors else 200,
    )


@login_required
def add_stage(request, slug: str):
    """Add a stage with its format's options; a bad value is refused in its field."""
    tournament = managed_tournament(request, slug)
    form = StageForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        with refusals_in(form):
            stage = services.add_stage(
                tournament,
                by=request.user,
                name=form.cleaned_data["name"],
                format=form.cleaned_data["format"],
                settings=form.settings(),
            )
            messages.success(
                request,
                gettext("Added stage {order}: {name}.").format(order=stage.order, name=stage.name),
            )
            # Back to the stage being played: a stage added for later waits its turn.
            return redirect("manage-tournament", slug=tournament.slug)
    return render(
        request,
        "tournaments/organize/add_stage.html",
        {"tournament": tournament, "form": form},
        status=400 if form.errors else 200,
    )


@login_required
def finish_stage(request, slug: str, order: int):
    """Finishing a stage in two steps: who goes through is listed first, and nothing
    changes until the organizer confirms that list."""
    tournament = managed_tournament(request, slug)
    stage = get_object_or_404(Stage, tournament=tournament, order=order)
    following = tournament.stages.filter(order__gt=stage.order).order_by("order").first()
    data = request.POST if request.method == "POST" else (request.GET or None)
    form = FinishForm(data, stage=stage, last=following is None)
    chosen, refused = [], ""
    if not form.is_bound or form.is_valid():
        values = form.cleaned_data if form.is_bound else {}
        top = values.get("top")
        per_pool = values.get(
            "per_pool", form["per_pool"].initial if "per_pool" in form.fields else None
        )
        if request.method == "POST":
            with refusals_kept() as finishing:
                following = services.finish_stage(
                    stage,
                    by=request.user,
                    top=top,
                    per_pool=per_pool or None,
                    expected=_listed(request.POST.get("listed")),
                    unplayed_rounds=_listed(request.POST.get("unplayed_rounds")),
                )
                messages.success(request, _finished_message(stage, following))
                return redirect(
                    reverse("manage-tournament", args=[tournament.slug])
                    + (f"?stage={following.order}" if following else "")
                )
            refused = finishing.text  # and the list is shown again, as it is now
        with refusals_kept() as previewing:
            chosen = services.finish_preview(
                stage, by=request.user, top=top, per_pool=per_pool or None
            )
        refused = refused or previewing.text
    through = selectors.going_through(stage, chosen)
    return render(
        request,
        "tournaments/organize/finish_stage.html",
        {
            "tournament": tournament,
            "stage": stage,
            "form": form,
            "through": through,
            "listed": ",".join(str(pk) for pk in chosen),
            "following": following,
            "refused": refused,
            "unplayed": services.rounds_unplayed(stage),
        },
        status=400 if (form.errors or refused) else 200,
    )


def _listed(value: str | None) -> list[int]:
    """The entrant ids the confirmation page listed ("3,1,7"); anything unreadable is a
    list nobody was shown, so the confirmation is refused and the list shown again."""
    try:
        return [int(part) for part in (value or "").split(",") if part.strip()]
    except ValueError:
        return [-1]


def _finished_message(stage: Stage, following: Stage | None) -> str:
    if following is None:
        return gettext(
            "{name} finished; it was the last stage, so the tournament is finished."
        ).format(name=stage.name)
    return gettext("{name} finished; {name2} is seeded from its standings.").format(
        name=stage.name, name2=following.name
    )
