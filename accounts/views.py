"""The language switch: per browser (a cookie) and, once signed in, per user."""

from django.conf import settings
from django.http import HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts import services

SESSION_KEY = "capicu_language"


@require_POST
def choose_language(request):
    language = request.POST.get("language", "")
    known = {code for code, _ in settings.LANGUAGES}
    if language not in known:
        language = ""
    target = request.POST.get("next") or "/"
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    response = HttpResponseRedirect(target)
    if language:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=365 * 24 * 3600,
            samesite="Lax",
            secure=not settings.DEBUG,
        )
    else:
        response.delete_cookie(settings.LANGUAGE_COOKIE_NAME)
    if request.user.is_authenticated:
        services.set_language(request.user, language)
        request.session[SESSION_KEY] = language
    return response
