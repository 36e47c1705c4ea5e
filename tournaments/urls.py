from django.urls import path

from tournaments import views

urlpatterns = [
    path("", views.home, name="home"),
    path("t/<slug:slug>/", views.tournament_page, name="tournament-page"),
    path("t/<slug:slug>/standings/", views.standings_live, name="tournament-standings"),
    path("t/<slug:slug>/tables/", views.tables_live, name="tournament-tables"),
    path("t/<slug:slug>/entrants/<int:pk>/", views.entrant_page, name="entrant-page"),
]
