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

    def __new__(cls, template: str, **params):
        text = super().__new__(cls, template.format(**params) if params else template)
        text.template = template
        text.params = params
        return text

    def __reduce__(self):
        return (_rebuild, (self.template, self.params))

    def translated(self, gettext: Callable[[str], str]) -> str:
        if not self.params:
            return gettext(self.template)  # nothing to fill in (braces may be literal)
        try:
            return gettext(self.template).format(**self.params)
        except (KeyError, IndexError, ValueError):
            return str(self)  # a translation that lost a placeholder: keep the English


def _rebuild(template: str, params: dict) -> Message:
    return Message(template, **params)


def say(template: str, **params) -> Message:
    """A message to show a person; ``template`` is marked for translation."""
    return Message(template, **params)


def localized(message, gettext: Callable[[str], str]) -> str:
    """``message`` in the language ``gettext`` speaks (plain strings are looked up as is)."""
    if isinstance(message, Message):
        return message.translated(gettext)
    return gettext(str(message)) if message else message
