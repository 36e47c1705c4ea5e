"""``makemessages`` that also finds the messages written with ``domain.say.say``."""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [
        *makemessages.Command.xgettext_options,
        "--keyword=say",
        "--keyword=say_n:1,2",
    ]
