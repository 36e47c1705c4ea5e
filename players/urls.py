from django.urls import path

from players import views

urlpatterns = [
    path("players/", views.search, name="player-search"),
    path("players/claim/", views.claim, name="player-claim"),
    path("players/unlink/", views.unlink, name="player-unlink"),
    path(
        "players/merge-requests/<int:pk>/confirm/",
        views.confirm_merge,
        name="merge-request-confirm-page",
    ),
    path(
        "players/entry-requests/<int:pk>/<str:answer>/",
        views.answer_entry_request,
        name="entry-request-answer",
    ),
    path("players/<int:pk>/", views.player_page, name="player-page"),
    path("players/<int:pk>/<str:action>/", views.player_action, name="player-action"),
    path("t/<slug:slug>/register/", views.entry_page, name="self-register"),
    path("t/<slug:slug>/check-in/", views.check_in_page, name="self-check-in"),
    path(
        "t/<slug:slug>/manage/registration/",
        views.manage_registration,
        name="manage-registration",
    ),
    path("t/<slug:slug>/manage/paste/", views.paste_preview, name="paste-preview"),
]
