"""The organizer's registration settings: times typed in the tournament's time zone."""

from zoneinfo import ZoneInfo

from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

LOCAL_INPUT = "%Y-%m-%dT%H:%M"


class LocalTime(forms.DateTimeInput):
    input_type = "datetime-local"

    def __init__(self, **kwargs):
        super().__init__(format=LOCAL_INPUT, **kwargs)


class RegistrationForm(forms.Form):
    opens_at = forms.DateTimeField(
        label=_("Registration opens"), required=False, widget=LocalTime(),
        help_text=_("Blank: open now."),
    )  # fmt: skip
    closes_at = forms.DateTimeField(
        label=_("Registration closes"), required=False, widget=LocalTime(),
        help_text=_("Blank: open until you close it."),
    )  # fmt: skip
    capacity = forms.IntegerField(
        label=_("Capacity (entrants)"), required=False, min_value=1,
        max_value=settings.MAX_ENTRANTS, help_text=_("Blank: no limit. Past it, a waiting list."),
    )  # fmt: skip
    requires_approval = forms.BooleanField(label=_("Entries need my approval"), required=False)
    check_in_opens_at = forms.DateTimeField(
        label=_("Self check-in opens"), required=False, widget=LocalTime(),
        help_text=_("Blank: players cannot check themselves in."),
    )  # fmt: skip
    check_in_closes_at = forms.DateTimeField(
        label=_("Self check-in closes"), required=False, widget=LocalTime()
    )

    TIMES = ("opens_at", "closes_at", "check_in_opens_at", "check_in_closes_at")

    def __init__(self, *args, tournament, registration=None, **kwargs):
        self.zone = ZoneInfo(tournament.time_zone)
        if registration is not None and not args:
            kwargs["initial"] = {
                "capacity": registration.capacity,
                "requires_approval": registration.requires_approval,
                **{
                    name: timezone.localtime(getattr(registration, name), self.zone).replace(
                        tzinfo=None
                    )
                    for name in self.TIMES
                    if getattr(registration, name)
                },
            }
        super().__init__(*args, **kwargs)

    def full_clean(self):
        # Times are read in the tournament's own time zone, whatever the server's.
        with timezone.override(self.zone):
            super().full_clean()
