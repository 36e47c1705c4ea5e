"""The manage page's officiating parts find what they show themselves, so that each is
one include line."""

from django import template

from tournaments import sanctions

register = template.Library()


@register.simple_tag
def event_disputes(tournament) -> list:
    disputes = list(sanctions.open_disputes(tournament))
    for dispute in disputes:
        dispute.seat_list = list(dispute.game.seats.order_by("position"))
    return disputes
