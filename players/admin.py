from django.contrib import admin

from players.models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["display_name", "club", "country", "user"]
    search_fields = ["display_name", "club"]
    list_filter = ["country"]
    raw_id_fields = ["user"]
