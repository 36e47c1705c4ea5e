"""Names as capicu compares them: accents, case and spacing folded away, a club given in
brackets after the name, and which folded names are close (a typo apart).

Pure text: no model, no query. The player model keys its rows with ``name_key`` and
``players.matching`` finds the players a name may be with the rest.
"""

import difflib
import re
import unicodedata

# How alike two folded names must be (difflib's ratio) to be offered as the same person.
CLOSE = 0.85
MOST_CANDIDATES = 5

_DIGITS = re.compile(r"\d+")
# "Name (Club)": the club in brackets after a space, at the end of the name.
_CLUB = re.compile(r"^(?P<name>.*?\S)\s+\((?P<club>[^()]*)\)$")


def name_key(text: str) -> str:
    """``text`` with accents, case and spacing folded away: the name as compared."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())


def split_club(text: str) -> tuple[str, str]:
    """``"Ana Rivera (Club Capicú)"`` is the name ``Ana Rivera`` of the club ``Club Capicú``."""
    text = " ".join((text or "").split())
    found = _CLUB.match(text)
    if found and found["name"] and found["club"].strip():
        return found["name"], found["club"].strip()
    return text, ""


def choice_key(name: str, club: str = "") -> str:
    """How an organizer's choice for a name is filed: the folded name and club."""
    return f"{name_key(name)}|{name_key(club)}"


def blocks(key: str) -> set[tuple]:
    """The groups a folded name is compared within. A name is compared only with names
    that share one of its words exactly and, in another word, the first letter or the
    last two: one typo keeps one of those, and a list of hundreds of names is checked
    against tens of thousands of players without comparing it with all of them (a
    common first name alone would make a group of thousands)."""
    words = key.split()
    if len(words) == 1:
        return {("1", key[:1]), ("1", key[-2:])}
    found = set()
    for i, word in enumerate(words):
        for j, other in enumerate(words):
            if i != j:
                found.add((word, "^" + other[:1]))
                found.add((word, "$" + other[-2:]))
    return found


def close_names(key: str, names) -> list[str]:
    """Folded names a few letters from ``key`` ("jose peres" for "jose perez"); numbers
    must agree ("player 16" is not "player 17")."""
    digits = _DIGITS.findall(key)
    near = difflib.get_close_matches(
        key, sorted(n for n in names if n != key), n=MOST_CANDIDATES * 2, cutoff=CLOSE
    )
    return [n for n in near if _DIGITS.findall(n) == digits][:MOST_CANDIDATES]
