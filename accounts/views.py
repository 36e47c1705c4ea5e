"""A user's own pages: the language switch (per browser, and per user once signed in) and
the account page, where everyone manages their own API token."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
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


@login_required
def account(request):
    """The signed-in user's account: their API token and the roles offered to them."""
    from rest_framework.authtoken.models import Token

    if request.method == "POST":
        action = request.POST.get("token")
        if action == "revoke":
            had = services.revoke_own_token(request.user)
            messages.success(
                request,
                gettext("Your API token is revoked.") if had else gettext("You had no API token."),
            )
        elif action in ("issue", "rotate"):
            key = services.issue_own_token(request.user, rotate=action == "rotate")
            request.session["new_token"] = key
            messages.success(
                request,
                gettext("Your new API token is shown below, this once.")
                if action == "rotate"
                else gettext("Your API token is shown below, this once."),
            )
        return redirect("account")
    token = Token.objects.filter(user=request.user).first()
    return render(
        request,
        "accounts/account.html",
        {"token": token, "new_token": request.session.pop("new_token", None)},
    )
