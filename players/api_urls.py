from django.urls import path

from players import api

urlpatterns = [
    path("players/", api.PlayerListView.as_view(), name="player-list"),
    path("players/<int:pk>/", api.PlayerDetailView.as_view(), name="player-detail"),
    path("players/<int:pk>/merge/", api.PlayerMergeView.as_view(), name="player-merge"),
    path("players/<int:pk>/claim-code/", api.ClaimCodeView.as_view(), name="player-claim-code"),
    path("account/claim/", api.ClaimView.as_view(), name="account-claim"),
    path("account/entries/", api.MyEntriesView.as_view(), name="account-entries"),
    path("account/identity/", api.IdentityView.as_view(), name="account-identity"),
    path(
        "account/entry-requests/",
        api.EntryRequestListView.as_view(),
        name="account-entry-requests",
    ),
    path(
        "account/entry-requests/<int:pk>/<str:answer>/",
        api.EntryRequestAnswerView.as_view(),
        name="entry-request-answer-api",
    ),
    path("account/unlink/", api.UnlinkView.as_view(), name="account-unlink"),
    path("merge-requests/", api.MergeRequestListView.as_view(), name="merge-request-list"),
    path(
        "merge-requests/<int:pk>/confirm/",
        api.MergeConfirmView.as_view(),
        name="merge-request-confirm",
    ),
    path(
        "tournaments/<slug:slug>/registration/",
        api.RegistrationView.as_view(),
        name="tournament-registration",
    ),
    path(
        "tournaments/<slug:slug>/applications/",
        api.ApplicationListView.as_view(),
        name="tournament-applications",
    ),
    path(
        "tournaments/<slug:slug>/check-in/",
        api.SelfCheckInView.as_view(),
        name="tournament-self-check-in",
    ),
    path(
        "tournaments/<slug:slug>/entrants/preview/",
        api.PastePreviewView.as_view(),
        name="tournament-entrants-preview",
    ),
    path(
        "applications/<int:pk>/<str:action>/",
        api.ApplicationActionView.as_view(),
        name="application-action",
    ),
]
