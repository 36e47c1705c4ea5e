"""domain/pages.py: a page says a service's refusal in one of three ways, each written once."""

import pytest
from django import forms
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.signed_cookies import SessionStore
from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import translation

from domain.errors import Conflict, UserError
from domain.pages import refusals_answered, refusals_in, refusals_kept, refusals_said
from domain.say import say


def page_request():
    request = RequestFactory().post("/")
    request.session = SessionStore()
    request._messages = FallbackStorage(request)
    return request


class NameForm(forms.Form):
    name = forms.CharField()


def test_a_refusal_ends_the_block_and_is_kept():
    ran = []
    finished = Conflict("This game is finished.")
    with refusals_kept() as refused:
        ran.append("before")
        raise finished
        ran.append("after")  # never reached
    assert ran == ["before"]
    assert refused and refused.error is finished
    assert refused.text == "This game is finished."


def test_a_block_that_goes_through_keeps_nothing():
    with refusals_kept() as refused:
        pass
    assert not refused and refused.error is None and refused.text == ""


def test_an_error_that_is_no_refusal_is_not_swallowed():
    with pytest.raises(KeyError), refusals_kept():
        raise KeyError("a bug")


def test_a_refusal_is_said_as_an_error_message_in_the_readers_language():
    request = page_request()
    with translation.override("es"), refusals_said(request) as refused:
        raise UserError(say("Say why the hand is being voided."), "reason")
    assert refused
    [message] = list(get_messages(request))
    assert message.level_tag == "error"
    assert message.message == "Explique por qué se anula la mano."


def test_nothing_is_said_when_the_write_goes_through():
    request = page_request()
    with refusals_said(request):
        pass
    assert list(get_messages(request)) == []


def test_a_refusal_goes_beside_the_field_it_names():
    form = NameForm({"name": "Ana"})
    assert form.is_valid()
    with refusals_in(form):
        raise UserError("That name is taken.", "name")
    assert form.errors == {"name": ["That name is taken."]}


def test_a_refusal_of_a_field_the_form_lacks_goes_above_it():
    form = NameForm({"name": "Ana"})
    assert form.is_valid()
    with refusals_in(form):
        raise Conflict("The event has started.", "status")
    assert form.non_field_errors() == ["The event has started."]


def test_a_views_refusals_get_its_one_answer_with_the_views_arguments():
    def answer(request, error, pk, **rest):
        return HttpResponse(f"{pk}: {error}", status=409)

    @refusals_answered(answer)
    def view(request, pk):
        raise Conflict("Out of turn.")

    response = view(page_request(), pk=7)
    assert response.status_code == 409
    assert response.content == b"7: Out of turn."


def test_a_view_that_is_not_refused_answers_itself():
    @refusals_answered(lambda *args, **kwargs: HttpResponse(status=400))
    def view(request):
        return HttpResponse("done")

    assert view(page_request()).content == b"done"
