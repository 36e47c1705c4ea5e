from django.urls import path

from scoring import officiating_views, views

urlpatterns = [
    path("games/<int:pk>/", views.game_page, name="game-page"),
    path("games/<int:pk>/sheet/", views.game_print, name="game-sheet"),
    path("referee/", views.my_tables, name="my-tables"),
    path("referee-sw.js", views.service_worker, name="referee-worker"),
    path("games/<int:pk>/score/", views.score_page, name="score-game"),
    path("games/<int:pk>/score/preview/", views.preview, name="score-preview"),
    path("games/<int:pk>/score/hand/", views.record, name="score-hand"),
    path("games/<int:pk>/score/event/", views.add_event, name="score-event"),
    path("games/<int:pk>/score/undo/<int:event_id>/", views.undo_event, name="score-undo"),
    path("games/<int:pk>/score/hands/<int:number>/", views.correct, name="score-correct"),
    path("games/<int:pk>/score/hands/<int:number>/void/", views.void, name="score-void"),
    path(
        "games/<int:pk>/disputes/photos/<int:photo_id>/",
        officiating_views.dispute_photo,
        name="dispute-photo",
    ),
    path(
        "games/<int:pk>/score/officiate/<slug:action>/",
        officiating_views.officiate,
        name="score-officiate",
    ),
    path("games/<int:pk>/reopen/", views.reopen, name="game-reopen-page"),
]
