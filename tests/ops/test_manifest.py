"""The web app manifest: linked from every page, served as a manifest, and naming icons
that exist, so a referee's phone can keep the scoring pages on its home screen."""

import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from PIL import Image

pytestmark = pytest.mark.django_db


def test_every_page_links_the_manifest_and_the_theme_color():
    page = Client().get("/").content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    assert '<meta name="theme-color" content="#0b5d3b">' in page
    assert re.search(r'<link rel="apple-touch-icon" href="/static/icons/[^"]+\.png">', page)


def test_the_manifest_opens_the_referees_tables_full_screen():
    response = Client().get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == "/referee/"
    assert manifest["scope"] == "/"  # the scoring pages (/games/<id>/score/) are inside it
    assert manifest["display"] == "fullscreen"
    assert manifest["theme_color"] == "#0b5d3b"
    assert manifest["short_name"] == "capicu"


def test_the_manifest_speaks_the_visitors_language():
    manifest = Client().get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="es").json()
    assert manifest["lang"] == "es"
    assert manifest["name"] != "capicu: dominoes score-keeping"


def test_the_icons_it_names_exist_at_their_sizes():
    manifest = Client().get("/manifest.webmanifest").json()
    sizes = set()
    for icon in manifest["icons"]:
        found = finders.find(icon["src"].removeprefix("/static/"))
        assert found, icon["src"]
        if icon["type"] == "image/png":
            width, height = Image.open(found).size
            assert icon["sizes"] == f"{width}x{height}"
            sizes.add(width)
    assert {192, 512} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
