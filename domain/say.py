"""Messages that remember how they were made, so that pages can say them in any language.

``say("Seat {seat} cannot hold {pips} pips.", seat="B", pips=99)`` is the English string
itself (a ``str``), and also keeps its template and values: the web layer looks the
template up in the user's language and fills the same values in (``localized``). Pure
Python: the translation function comes from the caller.
"""

from collections.abc import Callable


class Message(str):
    """An English message with its template and the values filled into it."""

    template: str
    params: dict
    plural: str | None = None  # the plural template, when the message counts something
    count: int = 1

    def __new__(cls, template: str, _plural: str | None = None, _count: int = 1, /, **params):
        chosen = template if _plural is None or _count == 1 else _plural
        text = super().__new__(cls, chosen.format(**params) if params else chosen)
        text.template = template
        text.params = params
        text.plural = _plural
        text.count = _count
        return text

    def __reduce__(self):
        return (_rebuild, (self.template, self.params, self.plural, self.count))

    def translated(
        self,
        gettext: Callable[[str], str],
        ngettext: Callable[[str, str, int], str] | None = None,
    ) -> str:
        if self.plural is not None:
            if ngettext is None:
                return str(self)
            template = ngettext(self.template, self.plural, self.count)
        elif not self.params:
            return gettext(self.template)  # nothing to fill in (braces may be literal)
        else:
            template = gettext(self.template)
        try:
            return template.format(**self.params)
        except (KeyError, IndexError, ValueError):
            return str(self)  # a translation that lost a placeholder: keep the English


def _rebuild(template: str, params: dict, plural: str | None = None, count: int = 1) -> Message:
    return Message(template, plural, count, **params)


def say(template: str, **params) -> Message:
    """A message to show a person; ``template`` is marked for translation."""
    return Message(template, **params)


def say_n(singular: str, plural: str, count: int, /, **params) -> Message:
    """A message that counts: ``singular`` or ``plural`` by ``count``, chosen again by the
    language's own plural rule when it is said (``ngettext``). Both are marked for
    translation; ``count`` picks the form, ``params`` fill it in."""
    return Message(singular, plural, count, **params)


def localized(
    message,
    gettext: Callable[[str], str],
    ngettext: Callable[[str, str, int], str] | None = None,
) -> str:
    """``message`` in the language ``gettext`` (and ``ngettext``, for counted messages)
    speaks; plain strings are looked up as is."""
    if isinstance(message, Message):
        return message.translated(gettext, ngettext)
    return gettext(str(message)) if message else message
