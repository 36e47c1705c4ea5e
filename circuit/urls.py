from django.urls import path

from circuit import seeding_views, views

urlpatterns = [
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
