"""capicu URL configuration."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.views import account, choose_language, unsubscribe
from config.api import api_not_found, api_root
from config.health import health
from config.manifest import manifest
from config.metrics import metrics
from tournaments.role_views import leave_role

api_v1 = [
    path("", api_root, name="api-root"),
    path("", include("scoring.api.urls")),
    path("", include("tournaments.api.urls")),
    path("", include("players.api.urls")),
    path("", include("circuit.api.urls")),
]

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file, so the docs need no inline code.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("health/", health, name="health"),
    path("metrics", metrics, name="metrics"),
    path("manifest.webmanifest", manifest, name="manifest"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/language/", choose_language, name="choose-language"),
    path("accounts/", account, name="account"),
    path("accounts/unsubscribe/<str:token>/", unsubscribe, name="unsubscribe"),
    path("accounts/roles/<int:pk>/leave/", leave_role, name="role-leave"),
    path("", include("circuit.urls")),
    path("", include("scoring.urls")),
    path("", include("players.urls")),
    path("", include("tournaments.urls")),
    # Any other API path is a JSON 404 (``api_not_found`` moves a path missing only its
    # slash to it).
    re_path(r"^api/", api_not_found, name="api-not-found"),
]

handler400 = "config.api.bad_request"
handler403 = "config.api.permission_denied"
handler404 = "config.api.page_not_found"
handler500 = "config.api.server_error"
