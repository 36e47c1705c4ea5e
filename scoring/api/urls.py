from django.urls import path

from scoring.api import officiating, views

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
    path("games/<int:pk>/disputes/", officiating.DisputeListView.as_view(), name="game-disputes"),
    path(
        "games/<int:pk>/disputes/<int:dispute_id>/resolve/",
        officiating.DisputeResolveView.as_view(),
        name="game-dispute-resolve",
    ),
    path("games/<int:pk>/forfeit/", officiating.ForfeitView.as_view(), name="game-forfeit"),
    path("games/<int:pk>/deductions/", officiating.DeductionView.as_view(), name="game-deductions"),
    path("games/<int:pk>/leader/", officiating.LeaderView.as_view(), name="game-leader"),
    path("games/<int:pk>/redeal/", officiating.RedealView.as_view(), name="game-redeal"),
    path("games/<int:pk>/audit/", officiating.GameAuditView.as_view(), name="game-audit"),
    path("rulesets/", views.RulesetListView.as_view(), name="ruleset-list"),
    path("rulesets/<str:key>/", views.RulesetDetailView.as_view(), name="ruleset-detail"),
    path("rulesets/<str:key>/score/", views.CalculatorView.as_view(), name="ruleset-score"),
]
