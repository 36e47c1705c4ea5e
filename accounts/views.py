"""A user's own pages: the language switch (per browser, and per user once signed in),
the account page, where everyone manages their own API token and emails, and the
one-click unsubscribe page that every email links to."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST
from rest_framework.authtoken.models import Token

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
    if request.method == "POST":
        action = request.POST.get("token")
        if request.POST.get("emails") in ("on", "off"):
            on = request.POST["emails"] == "on"
            services.set_emails(request.user, on)
            messages.success(
                request,
                gettext("capicu may email you about your events.")
                if on
                else gettext("capicu will not email you."),
            )
        elif action == "revoke":
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
        {
            "token": token,
            "new_token": request.session.pop("new_token", None),
            "wants_emails": services.wants_emails(request.user),
        },
    )


@csrf_exempt  # RFC 8058: mail clients POST here with no session; the signed token is the key
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token: str):
    """Stop every email to the account the token names, without signing in: GET asks to
    confirm (a link scanner must not unsubscribe anyone), POST turns them off."""
    user = services.user_of_unsubscribe_token(token)
    if user is None:
        return render(request, "accounts/unsubscribe.html", {"invalid": True}, status=404)
    done = request.method == "POST"
    if done:
        services.unsubscribe(token)
    return render(request, "accounts/unsubscribe.html", {"done": done, "token": token})
