"""One log line per request, in JSON, with the request id its answer gives back; plain
text where the settings ask for it."""

import json
import logging

import pytest
from django.test import Client

from config.logging import JsonFormatter, RequestIdFilter, configuration

pytestmark = pytest.mark.django_db


@pytest.fixture
def request_lines(caplog):
    caplog.set_level(logging.INFO, logger="capicu.request")
    return lambda: [r for r in caplog.records if r.name == "capicu.request"]


def as_json(record: logging.LogRecord) -> dict:
    RequestIdFilter().filter(record)
    line = JsonFormatter().format(record)
    assert "\n" not in line
    return json.loads(line)


def test_each_request_is_one_json_line_with_the_id_its_answer_gives_back(request_lines):
    response = Client(REMOTE_ADDR="198.51.100.4").get("/")
    request_id = response["X-Request-ID"]
    assert len(request_id) == 32
    (record,) = request_lines()
    line = as_json(record)
    assert line["request_id"] == request_id
    assert line["level"] == "INFO"
    assert line["logger"] == "capicu.request"
    assert (line["method"], line["path"], line["view"], line["status"]) == ("GET", "/", "home", 200)
    assert line["client"] == "198.51.100.4"
    assert line["ms"] >= 0
    assert line["time"].endswith("Z")


def test_each_request_gets_an_id_of_its_own():
    first, second = Client().get("/health/"), Client().get("/health/")
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_a_proxys_well_formed_id_is_kept_and_anything_else_replaced(request_lines):
    kept = Client().get("/", HTTP_X_REQUEST_ID="0f3c9a7e5d2b4c11a8e6f0b9d7c5a3e1")
    assert kept["X-Request-ID"] == "0f3c9a7e5d2b4c11a8e6f0b9d7c5a3e1"
    odd = Client().get("/", HTTP_X_REQUEST_ID='x"; injected=1')
    assert odd["X-Request-ID"] != 'x"; injected=1'
    assert len(odd["X-Request-ID"]) == 32


def test_djangos_own_lines_in_a_request_carry_its_id(caplog):
    caplog.set_level(logging.WARNING, logger="django.request")
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    (record,) = [r for r in caplog.records if r.name == "django.request"]
    assert as_json(record)["request_id"] == response["X-Request-ID"]


def test_the_setting_switches_between_json_and_plain_text():
    json_config = configuration(json=True, level="INFO", requests=True)
    text_config = configuration(json=False, level="WARNING", requests=False)
    assert json_config["handlers"]["console"]["formatter"] == "json"
    assert json_config["loggers"]["capicu.request"]["level"] == "INFO"
    assert text_config["handlers"]["console"]["formatter"] == "text"
    assert text_config["loggers"]["capicu.request"]["level"] == "WARNING"
    record = logging.LogRecord("capicu", logging.WARNING, __file__, 1, "hand %s", (3,), None)
    RequestIdFilter().filter(record)
    text = logging.Formatter(text_config["formatters"]["text"]["format"]).format(record)
    assert text.endswith("WARNING capicu [] hand 3")
