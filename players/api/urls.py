from django.urls import path

from players.api import views

urlpatterns = [
    path("players/", views.PlayerListView.as_view(), name="player-list"),
    path("players/<int:pk>/", views.PlayerDetailView.as_view(), name="player-detail"),
    path("players/<int:pk>/merge/", views.PlayerMergeView.as_view(), name="player-merge"),
    path("players/<int:pk>/claim-code/", views.ClaimCodeView.as_view(), name="player-claim-code"),
    path("account/claim/", views.ClaimView.as_view(), name="account-claim"),
    path("account/entries/", views.MyEntriesView.as_view(), name="account-entries"),
    path("account/identity/", views.IdentityView.as_view(), name="account-identity"),
    path(
        "account/entry-requests/",
        views.EntryRequestListView.as_view(),
        name="account-entry-requests",
    ),
    path(
        "account/entry-requests/<int:pk>/<str:answer>/",
        views.EntryRequestAnswerView.as_view(),
        name="entry-request-answer-api",
    ),
    path("account/unlink/", views.UnlinkView.as_view(), name="account-unlink"),
    path("merge-requests/", views.MergeRequestListView.as_view(), name="merge-request-list"),
    path(
        "merge-requests/<int:pk>/confirm/",
        views.MergeConfirmView.as_view(),
        name="merge-request-confirm",
    ),
    path(
        "tournaments/<slug:slug>/registration/",
        views.RegistrationView.as_view(),
        name="tournament-registration",
    ),
    path(
        "tournaments/<slug:slug>/applications/",
        views.ApplicationListView.as_view(),
        name="tournament-applications",
    ),
    path(
        "tournaments/<slug:slug>/check-in/",
        views.SelfCheckInView.as_view(),
        name="tournament-self-check-in",
    ),
    path(
        "tournaments/<slug:slug>/entrants/preview/",
        views.PastePreviewView.as_view(),
        name="tournament-entrants-preview",
    ),
    path(
        "applications/<int:pk>/<str:action>/",
        views.ApplicationActionView.as_view(),
        name="application-action",
    ),
]
