"""The circuit API's routes, mounted under ``api/v1/`` by ``config.urls``."""

from django.urls import path

from circuit.api import views

urlpatterns = [
    path("series/", views.SeriesListView.as_view(), name="series-list-api"),
    path("series/<slug:slug>/", views.SeriesDetailView.as_view(), name="series-detail-api"),
    path(
        "series/<slug:slug>/events/",
        views.SeriesNextEventView.as_view(),
        name="series-next-event-api",
    ),
    path(
        "series/<slug:slug>/standings/",
        views.SeriesStandingsView.as_view(),
        name="series-standings-api",
    ),
    path(
        "series/<slug:slug>/standings.csv",
        views.SeriesExportView.as_view(),
        name="series-export-api",
    ),
    path("ratings/<str:pool>/", views.LeaderboardView.as_view(), name="leaderboard-api"),
    path(
        "players/<int:pk>/ratings/",
        views.PlayerRatingsView.as_view(),
        name="player-ratings-api",
    ),
    path(
        "tournaments/<slug:slug>/seed-by-rating/",
        views.SeedByRatingView.as_view(),
        name="seed-by-rating-api",
    ),
    path("ladders/", views.LadderListView.as_view(), name="ladder-list-api"),
    path("ladders/<slug:slug>/", views.LadderDetailView.as_view(), name="ladder-detail-api"),
    path("ladders/<slug:slug>/audit/", views.LadderAuditView.as_view(), name="ladder-audit-api"),
    path(
        "ladders/<slug:slug>/<str:action>/",
        views.LadderActionView.as_view(),
        name="ladder-action-api",
    ),
    path("account/ladders/", views.AccountLaddersView.as_view(), name="account-ladders-api"),
    path(
        "account/ladders/requests/<int:pk>/<str:answer>/",
        views.LadderRequestAnswerView.as_view(),
        name="ladder-request-answer-api",
    ),
]
