"""Pages in the signed-in user's own language, whatever device they use."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.utils import translation

from accounts.models import Preference
from accounts.views import SESSION_KEY


class UserLanguageMiddleware:
    """After authentication: a user's saved language wins over the browser's."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return self.get_response(request)


@receiver(user_logged_in, dispatch_uid="accounts.language_on_login")
def remember_language(sender, request, user, **kwargs):
    preference = Preference.objects.filter(user=user).only("language").first()
    if preference and preference.language and request is not None:
        request.session[SESSION_KEY] = preference.language
