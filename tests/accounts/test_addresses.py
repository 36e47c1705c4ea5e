"""The client's address counts only the proxies the operator configured."""

from django.test import RequestFactory

from accounts.addresses import address_of, client_address


def request(forwarded=None):
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return RequestFactory().get("/", REMOTE_ADDR="10.0.0.1", **extra)


def test_without_proxies_the_connecting_address_is_the_client(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}
    assert client_address(request("1.2.3.4")) == "10.0.0.1"


def test_with_proxies_the_address_that_many_hops_from_the_right(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 2}
    assert client_address(request("6.6.6.6, 1.2.3.4, 5.6.7.8")) == "1.2.3.4"
    assert client_address(request("1.2.3.4")) == "1.2.3.4"
    assert client_address(request()) == "10.0.0.1"
    assert client_address(request(" , ")) == "10.0.0.1"


def test_a_stream_served_outside_django_gets_the_same_address(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert address_of("10.0.0.1", "6.6.6.6, 1.2.3.4") == "1.2.3.4"
    assert address_of("10.0.0.1", None) == "10.0.0.1"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}
    assert address_of("10.0.0.1", "1.2.3.4") == "10.0.0.1"
