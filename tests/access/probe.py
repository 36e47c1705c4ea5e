"""How the access tests walk the project: every route and operation, each parameter filled
from the world, each request made in a savepoint and judged against the access table."""

import re
from dataclasses import dataclass
from functools import cache
from http.cookies import SimpleCookie

from django.apps import apps
from django.conf import settings
from django.db import connection, transaction
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse

from tests.access import table
from tests.access.conftest import OUTSIDERS, SECRET

REFUSED = {401, 403, 404, 405}
WRITES = ("POST", "PUT", "PATCH", "DELETE")
METHODS = ("GET", *WRITES)
# The apps whose tables a refused write must leave as they were (with the users).
APPS = ("accounts", "scoring", "tournaments", "players", "circuit")


@dataclass(frozen=True)
class Route:
    """One URL pattern: its name (with namespace), its pattern text, its parameters."""

    name: str  # the pattern's text where it has no name
    pattern: str
    params: tuple[str, ...]
    named: bool = True

    def path(self, kwargs: dict) -> str:
        if self.named:
            return reverse(self.name, kwargs=kwargs)
        filled = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(kwargs[m.group(1)]), self.pattern)
        filled = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: str(kwargs[m.group(1)]), filled)
        return "/" + filled.replace("^", "").replace("$", "")


def _params(pattern) -> tuple[str, ...]:
    return tuple(pattern.regex.groupindex)


def routes(patterns=None, prefix: str = "", namespace: str = "") -> list[Route]:
    """Every named URL pattern of the project, walked from the root resolver."""
    found = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        text = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = namespace
            if entry.namespace:
                inner = f"{namespace}:{entry.namespace}" if namespace else entry.namespace
            found += routes(entry.url_patterns, text, inner)
        elif isinstance(entry, URLPattern):
            name = entry.name and (f"{namespace}:{entry.name}" if namespace else entry.name)
            found.append(Route(name or text, text, _params(entry.pattern), bool(name)))
    return found


def _segment_before(pattern: str, param: str) -> str:
    """The literal path segment just before ``param`` ("rounds" in rounds/<int:number>)."""
    name = re.escape(param)
    match = re.search(rf"([\w-]+)/(?:<[^>]*\b{name}>|\{{{name}\}}|\(\?P<{name}>)", pattern)
    return match.group(1) if match else ""


def fillings(pattern: str, params, entry: dict, world) -> tuple[list[tuple[str, dict]], str]:
    """Every (target, kwargs) to request a route with; or a reason it cannot be filled.

    A parameter is filled from the world by the segment before it and its name
    (``rounds.number``); a word parameter (an action, an export's kind)
    takes each value the table lists for it."""
    if not params:
        return [("none", {})], ""
    found = {}
    for target, values in world.values.items():
        kwargs = {}
        for param in params:
            key = f"{_segment_before(pattern, param)}.{param}"
            if param in entry:
                continue
            if key not in values:
                break
            kwargs[param] = values[key]
        else:
            found.setdefault(tuple(sorted(kwargs.items())), (target, kwargs))
    if not found:
        return [], f"no value for {', '.join(params)}"
    found = {
        key: (_target(target, kwargs, pattern), kwargs) for key, (target, kwargs) in found.items()
    }
    words = [param for param in params if param in entry]
    filled = []
    for target, kwargs in found.values():
        variants = [kwargs]
        for word in words:
            variants = [{**v, word: choice} for v in variants for choice in entry[word]]
        filled += [(target, v) for v in variants]
    return filled, ""


# Parameters that name nothing of an event's: a player (whose page must still not name a
# private event), a hand's number, a game's event.
NEUTRAL = {"players.pk", "hands.number", "events.event_id", "undo.event_id"}


def _target(target: str, kwargs: dict, pattern: str) -> str:
    """ "none" for a private target whose parameters name nothing private of it."""
    keys = {f"{_segment_before(pattern, param)}.{param}" for param in kwargs}
    return "none" if target == "private" and keys <= NEUTRAL else target


@cache
def _tables() -> list[tuple[str, str]]:
    """(table, select) for every table a refused request must leave as it was."""
    models = [m for app in APPS for m in apps.get_app_config(app).get_models()]
    models.append(apps.get_model(settings.AUTH_USER_MODEL))
    quote = connection.ops.quote_name
    found = []
    for model in models:
        columns = [f.column for f in model._meta.concrete_fields if f.column != "last_login"]
        table_name = model._meta.db_table
        listed = ", ".join(quote(column) for column in columns)
        found.append((table_name, f"SELECT {listed} FROM {quote(table_name)} ORDER BY 1"))
    return found


@cache
def _one_query() -> str:
    """On PostgreSQL, every table's rows as one digest each, in a single query: a round
    trip a table would cost more than the request being checked."""
    digests = ", ".join(
        f"(SELECT md5(coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '')) "
        f"FROM ({select}) r)"
        for _, select in _tables()
    )
    return f"SELECT {digests}"


def fingerprint() -> dict:
    """The project's tables as they are, row by row (raw SQL: this runs for every write)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_one_query())
            return dict(zip([name for name, _ in _tables()], cursor.fetchone(), strict=True))
        state = {}
        for table_name, select in _tables():
            cursor.execute(select)
            state[table_name] = cursor.fetchall()
    return state


def changed_tables(before: dict, after: dict) -> list[str]:
    return sorted(name for name in before if before[name] != after[name])


def may(level: str, kind: str, target: str) -> bool:
    """Whether ``kind`` of outsider may do what needs ``level`` on ``target``."""
    if level == table.NOBODY or level == table.SUPERUSER or level == table.CREATOR:
        return False
    if target == "private":  # nobody of them holds a role in the private event
        return False
    if kind == "anonymous":
        return level == table.PUBLIC and target != "draft"
    if level == table.PUBLIC:
        return target != "draft" or kind in ("referee", "organizer")
    if level == table.SIGNED_IN:
        return target != "draft" or kind in ("referee", "organizer")
    if target == "none":
        return level == table.SELF
    if level == table.SELF:
        return kind == "player"
    if level == table.STAFF:
        return kind in ("referee", "organizer")
    return level == table.ORGANIZER and kind == "organizer"


def secret_in(response, path: str) -> bool:
    """Whether the answer names a private thing (the address asked for aside)."""
    if response.get("Content-Type", "").startswith("text/event-stream"):
        return False
    body = b"".join(response.streaming_content) if response.streaming else response.content
    text = body.decode("utf-8", "replace").lower().replace(path.lower(), "")
    return SECRET in text


def refused(response, kind: str) -> bool:
    if response.status_code in REFUSED:
        return True
    location = response.get("Location", "")
    return response.status_code == 302 and "login" in location


class Walker:
    """Requests routes as each outsider and writes down every problem it sees."""

    def __init__(self, world):
        self.world = world
        self.problems: list[str] = []
        self.before = None
        # What each client holds before it asks: a logout or a language choice is undone.
        self.cookies = {
            kind: {key: morsel.value for key, morsel in client.cookies.items()}
            for kind, client in world.clients.items()
        }

    def ask(self, kind: str, method: str, path: str, *, hx: bool = False, json: bool = False):
        """One request in a savepoint that is rolled back; (response, changed tables)."""
        client = self.world.clients[kind]
        headers = {"HX-Request": "true"} if hx else {}
        extra = (
            {"content_type": "application/json", "data": "{}"} if json and method in WRITES else {}
        )
        with transaction.atomic():
            try:
                response = getattr(client, method.lower())(path, headers=headers, **extra)
            except Exception as error:  # every crash is a finding
                response = None
                self.problems.append(f"{method} {path} as {kind}: raised {error!r}")
            changed = []
            if method in WRITES and response is not None and kind in OUTSIDERS:
                if self.before is None:
                    self.before = fingerprint()
                changed = changed_tables(self.before, fingerprint())
            transaction.set_rollback(True)
        client.cookies = SimpleCookie(self.cookies[kind])
        return response, changed

    def check(
        self,
        name: str,
        level: str,
        target: str,
        method: str,
        path: str,
        *,
        read=False,
        kinds=OUTSIDERS,
        warm=True,
        **how,
    ):
        """Ask ``path`` as the insider (to fill the caches), then as each outsider.

        ``read``: a write method on a route the table gives none, answered as a read; it
        may answer whoever may read the route, and must change nothing for anyone.
        ``warm``: False where nothing is kept between requests (the admin)."""
        if method == "GET" and warm:
            self.ask(
                "insider" if target in ("private", "none") else "organizer", method, path, **how
            )
        for kind in kinds:
            response, changed = self.ask(kind, method, path, **how)
            if response is None:
                continue
            what = f"{name}: {method} {path}{' (HX)' if how.get('hx') else ''} as {kind}"
            status = response.status_code
            if status >= 500:
                self.problems.append(f"{what}: answered {status}")
            allowed = may(level, kind, target)
            if not allowed and not refused(response, kind):
                self.problems.append(f"{what}: answered {status}, expected 401/403/404/405")
            if (read or not allowed) and changed:
                self.problems.append(f"{what}: changed {', '.join(changed)}")
            if secret_in(response, path):
                self.problems.append(f"{what}: the answer names the private event ({SECRET})")


def level_of(entry: dict, method: str, kwargs: dict) -> tuple[str, bool]:
    """The level a method of a route needs, and whether it is a write the route lacks.

    A method's level may depend on a word parameter's value: {"claim-code": ..., ...}."""
    if method not in entry:
        return entry.get("GET", table.NOBODY), method in WRITES
    level = entry[method]
    if isinstance(level, dict):
        (word,) = [value for value in kwargs.values() if value in level]
        level = level[word]
    return level, False


@cache
def operations() -> list[tuple[str, str, str]]:
    """Every operation of the API's generated schema: (method, path template, route name)."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = []
    for template, methods in schema["paths"].items():
        name = resolve(re.sub(r"\{[^}]+\}", "1", template)).view_name
        found += [(m.upper(), template, name) for m in methods if m.upper() in METHODS]
    return found


def operation_paths() -> set[str]:
    """The route names the schema's operations cover."""
    return {name for _, _, name in operations()}
