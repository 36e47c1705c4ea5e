from django.urls import path

from scoring.api import views

urlpatterns = [
    path("games/", views.GameListView.as_view(), name="game-list"),
    path("games/<int:pk>/", views.GameDetailView.as_view(), name="game-detail"),
    path("games/<int:pk>/hands/", views.HandListView.as_view(), name="game-hands"),
    path("games/<int:pk>/hands/<int:number>/", views.HandDetailView.as_view(), name="game-hand"),
    path(
        "games/<int:pk>/hands/<int:number>/history/",
        views.HandHistoryView.as_view(),
        name="game-hand-history",
    ),
    path("games/<int:pk>/events/", views.EventListView.as_view(), name="game-events"),
    path(
        "games/<int:pk>/events/<int:event_id>/",
        views.EventDetailView.as_view(),
        name="game-event",
    ),
    path("games/<int:pk>/reopen/", views.ReopenView.as_view(), name="game-reopen"),
    path("rulesets/", views.RulesetListView.as_view(), name="ruleset-list"),
    path("rulesets/<str:key>/", views.RulesetDetailView.as_view(), name="ruleset-detail"),
    path("rulesets/<str:key>/score/", views.CalculatorView.as_view(), name="ruleset-score"),
]
