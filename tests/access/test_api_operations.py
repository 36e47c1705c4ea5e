"""Every operation of the API's schema, asked by every kind of outsider: refused where the
table says so, nothing written, and no private event named in any answer (JSON, CSV)."""

import re

import pytest

from tests.access import probe, table

pytestmark = pytest.mark.django_db


def test_every_operation_is_in_the_access_table():
    missing = [
        f"{method} {template} ({name})"
        for method, template, name in probe.operations()
        if method not in (table.entry(name) or {})
    ]
    assert not missing, (
        "These API operations have no line in tests/access/table.py: add the method to "
        f"the route's entry with who may use it: {missing}"
    )


def test_every_operation_refuses_outsiders_and_keeps_private_events_out(world):
    walker = probe.Walker(world)
    for method, template, name in probe.operations():
        entry = table.entry(name) or {}
        if method not in entry:
            continue
        pattern = template.replace("{id}", "{pk}")
        params = tuple(re.findall(r"\{(\w+)\}", pattern))
        filled, reason = probe.fillings(pattern, params, entry, world)
        if not filled and "unfilled" not in entry:
            walker.problems.append(
                f"{method} {template}: {reason}; fill it in tests/access/conftest.py or say "
                "why under 'unfilled' in its table entry"
            )
        for target, kwargs in filled:
            path = pattern.format(**kwargs)
            level, _ = probe.level_of(entry, method, kwargs)
            walker.check(name, level, target, method, path, json=True)
    assert not walker.problems, "\n".join(walker.problems)
