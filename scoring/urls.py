from django.urls import path

from scoring import views

urlpatterns = [
    path("games/<int:pk>/", views.game_page, name="game-page"),
    path("games/<int:pk>/sheet/", views.game_print, name="game-sheet"),
    path("referee/", views.my_tables, name="my-tables"),
    path("games/<int:pk>/score/", views.score_page, name="score-game"),
    path("games/<int:pk>/score/preview/", views.preview, name="score-preview"),
    path("games/<int:pk>/score/hand/", views.record, name="score-hand"),
    path("games/<int:pk>/score/event/", views.add_event, name="score-event"),
    path("games/<int:pk>/score/undo/<int:event_id>/", views.undo_event, name="score-undo"),
    path("games/<int:pk>/score/hands/<int:number>/", views.correct, name="score-correct"),
    path("games/<int:pk>/score/hands/<int:number>/void/", views.void, name="score-void"),
    path("games/<int:pk>/reopen/", views.reopen, name="game-reopen-page"),
]
