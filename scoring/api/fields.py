"""Input fields that take only the JSON type the schema declares.

DRF's own fields are lenient: a text field takes 0 and makes it "0", a flag takes 0, 1,
"yes" or "off", a whole number takes "12". The API documents strict JSON types, so a
body that sends another type is refused in the field's own words, not quietly converted.
"""

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers


class Text(serializers.CharField):
    default_error_messages = {"invalid": _("Give text, in quotes.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class Slug(serializers.SlugField):
    default_error_messages = {"invalid_type": _("Give text, in quotes.")}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid_type")
        return super().to_internal_value(data)


class Flag(serializers.BooleanField):
    default_error_messages = {"invalid": _("Give true or false.")}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class WholeNumber(serializers.IntegerField):
    default_error_messages = {"invalid": _("Give a whole number, without quotes.")}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)
