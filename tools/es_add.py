"""Add or update Spanish entries in the catalogue and compile it, safely beside others.

Usage: .venv/bin/python tools/es_add.py ENTRIES.json

ENTRIES.json is a list of objects: {"msgid": ..., "msgstr": ...} with optional
"msgctxt", or {"msgid": ..., "msgid_plural": ..., "msgstr_plural": {"0": ..., "1": ...}}.
The catalogue is read, changed and written under an exclusive lock, so several
people adding entries at once do not overwrite each other's; `make messages` later
keeps every entry that the code still marks.
"""

import fcntl
import json
import sys
from pathlib import Path

import polib

CATALOGUE = Path(__file__).resolve().parent.parent / "locale" / "es" / "LC_MESSAGES"


def add(entries: list[dict]) -> tuple[int, int]:
    added = updated = 0
    with open(CATALOGUE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        po = polib.pofile(str(CATALOGUE / "django.po"), wrapwidth=79)
        for item in entries:
            entry = po.find(item["msgid"], msgctxt=item.get("msgctxt"))
            if entry is None:
                entry = polib.POEntry(msgid=item["msgid"], msgctxt=item.get("msgctxt"))
                po.append(entry)
                added += 1
            else:
                updated += 1
            if "msgid_plural" in item:
                entry.msgid_plural = item["msgid_plural"]
                entry.msgstr_plural = {int(k): v for k, v in item["msgstr_plural"].items()}
            else:
                entry.msgstr = item["msgstr"]
            entry.obsolete = False
            if "fuzzy" in entry.flags:
                entry.flags.remove("fuzzy")
        po.save(str(CATALOGUE / "django.po"))
        po.save_as_mofile(str(CATALOGUE / "django.mo"))
    return added, updated


if __name__ == "__main__":
    added, updated = add(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8")))
    print(f"{added} added, {updated} updated; catalogue compiled")
