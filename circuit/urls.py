from django.urls import path

from circuit import api, seeding_views, views

api_urls = [
    path("api/v1/series/", api.SeriesListView.as_view(), name="series-list-api"),
    path("api/v1/series/<slug:slug>/", api.SeriesDetailView.as_view(), name="series-detail-api"),
    path(
        "api/v1/series/<slug:slug>/events/",
        api.SeriesNextEventView.as_view(),
        name="series-next-event-api",
    ),
    path(
        "api/v1/series/<slug:slug>/standings/",
        api.SeriesStandingsView.as_view(),
        name="series-standings-api",
    ),
    path(
        "api/v1/series/<slug:slug>/standings.csv",
        api.SeriesExportView.as_view(),
        name="series-export-api",
    ),
    path("api/v1/ratings/<str:pool>/", api.LeaderboardView.as_view(), name="leaderboard-api"),
    path(
        "api/v1/players/<int:pk>/ratings/",
        api.PlayerRatingsView.as_view(),
        name="player-ratings-api",
    ),
    path(
        "api/v1/tournaments/<slug:slug>/seed-by-rating/",
        api.SeedByRatingView.as_view(),
        name="seed-by-rating-api",
    ),
    path("api/v1/ladders/", api.LadderListView.as_view(), name="ladder-list-api"),
    path("api/v1/ladders/<slug:slug>/", api.LadderDetailView.as_view(), name="ladder-detail-api"),
    path(
        "api/v1/ladders/<slug:slug>/audit/", api.LadderAuditView.as_view(), name="ladder-audit-api"
    ),
    path(
        "api/v1/ladders/<slug:slug>/<str:action>/",
        api.LadderActionView.as_view(),
        name="ladder-action-api",
    ),
    path("api/v1/account/ladders/", api.AccountLaddersView.as_view(), name="account-ladders-api"),
    path(
        "api/v1/account/ladders/requests/<int:pk>/<str:answer>/",
        api.LadderRequestAnswerView.as_view(),
        name="ladder-request-answer-api",
    ),
]

urlpatterns = [
    *api_urls,
    path("series/", views.series_list, name="series-list"),
    path("series/new/", views.new_series, name="new-series"),
    path("series/<slug:slug>/", views.series_page, name="series-page"),
    path("series/<slug:slug>/next/", views.series_next_event, name="series-next-event"),
    path("series/<slug:slug>/standings.csv", views.series_export, name="series-export"),
    path("ratings/", views.leaderboard, name="leaderboard"),
    path("ratings/<str:pool>/", views.leaderboard, name="leaderboard-pool"),
    path("ladders/", views.ladder_list, name="ladder-list"),
    path("ladders/new/", views.new_ladder, name="new-ladder"),
    path("ladders/<slug:slug>/", views.ladder_page, name="ladder-page"),
    path("ladders/<slug:slug>/floor/", views.ladder_floor, name="ladder-floor"),
    path("ladders/<slug:slug>/do/<str:action>/", views.ladder_act, name="ladder-action"),
    path(
        "ladders/requests/<int:pk>/<str:answer>/",
        views.answer_ladder_request,
        name="ladder-request-answer",
    ),
    path(
        "t/<slug:slug>/seed-by-rating/",
        seeding_views.seed_event_by_rating,
        name="seed-by-rating",
    ),
]
