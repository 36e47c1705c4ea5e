"""Every URL pattern, asked by every kind of outsider: refused where the table says so,
nothing written, and no private event named in any answer (pages, HX partials, CSV).

The API's operations in the schema are asked in test_api_operations; here the rest."""

import pytest

from tests.access import probe, table

pytestmark = pytest.mark.django_db

READ_WRITERS = ("anonymous", "player", "organizer")


def test_every_route_is_in_the_access_table():
    missing = [route.name for route in probe.routes() if table.entry(route.name) is None]
    assert not missing, (
        "These routes have no line in tests/access/table.py: add each with who may use "
        f"it (public, signed-in, self, staff, organizer, creator, superuser): {missing}"
    )


def test_every_filled_route_refuses_outsiders_and_keeps_private_events_out(world):
    walker = probe.Walker(world)
    in_schema = probe.operation_paths()
    for route in probe.routes():
        entry = table.entry(route.name)
        if entry is None or route.name in in_schema:
            continue
        filled, reason = probe.fillings(route.pattern, route.params, entry, world)
        if not filled:
            if "unfilled" not in entry:
                walker.problems.append(
                    f"{route.name}: {reason}; fill it in tests/access/conftest.py or say "
                    "why under 'unfilled' in its table entry"
                )
            continue
        # Django's admin and the API are no htmx pages: asked once, plainly. The admin keeps
        # nothing between requests and asks only whether the user is Django staff, which no
        # outsider is: two of them ask it.
        pages = not route.pattern.startswith(("admin/", "api/"))
        admin = route.pattern.startswith("admin/")
        kinds = ("anonymous", "outsider") if admin else entry.get("askers", probe.OUTSIDERS)
        for target, kwargs in filled:
            path = route.path(kwargs)
            for method in ("GET", "POST"):
                level, read = probe.level_of(entry, method, kwargs)
                # A write the route lacks, answered as a read: one asker signed out, one
                # signed in with no role, one who runs an event.
                askers = [k for k in kinds if k in READ_WRITERS] if read else kinds
                for hx in (False, True) if method == "GET" and pages else (False,):
                    walker.check(
                        route.name,
                        level,
                        target,
                        method,
                        path,
                        read=read,
                        hx=hx,
                        kinds=askers,
                        warm=not admin,
                    )
    assert not walker.problems, "\n".join(walker.problems)


def test_the_private_event_is_named_to_its_organizer(world):
    """The walk's own check: what outsiders must not see is there for the insider, so a
    clean walk means refused, not a world that holds nothing private."""
    client = world.clients["insider"]
    slug = world.values["private"]["t.slug"]
    for path in (f"/t/{slug}/", f"/t/{slug}/manage/", f"/api/v1/tournaments/{slug}/", "/"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert probe.SECRET in response.content.decode().lower(), path
