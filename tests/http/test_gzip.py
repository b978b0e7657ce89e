"""Kept text pages come gzipped to the clients that take it (Accept-Encoding,
RFC 9110 12.5.3), as they are to those that do not: the same bytes once
decoded, Vary on both, a strong ETag of each copy's own ("...-gz" for the
gzip one), and either tag revalidates.  Large bodies are held gzipped only
(the style sheet, 37 KB), smaller ones both ways (a run page), those
under 4 KB (badges) as they are.
"""
import gzip
import http.client

import pytest

from conftest import make_payload, sign


def raw_get(server, path, ae=None, method="GET", inm=None):
    """status, headers (lower-case names) and the body as sent; no
    Accept-Encoding at all when ae is None."""
    c = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    h = {}
    if ae is not None:
        h["Accept-Encoding"] = ae
    if inm:
        h["If-None-Match"] = inm
    c.request(method, path, headers=h)
    r = c.getresponse()
    body = r.read()
    headers = {k.lower(): v for k, v in r.getheaders()}
    c.close()
    return r.status, headers, body


@pytest.fixture
def site(server):
    token, _ = sign(make_payload())
    r = server.upload(token)
    assert r.status_code == 201, r.text
    server.rid = r.json()["id"]
    server.wait_logged(server.rid)   # its JSON, with the log's proof, is kept from then on
    return server


@pytest.mark.parametrize("path", ["/", "/static/style.css", "/r/{rid}", "/r/{rid}.json",
                                  "/cheatsheet"])
def test_a_kept_page_gzipped_is_the_same_page(site, path):
    path = path.format(rid=site.rid)
    for _ in range(2):       # built, then from the kept copy
        st, plain_h, plain = raw_get(site, path)
        assert st == 200, path
        assert "content-encoding" not in plain_h
        assert int(plain_h["content-length"]) == len(plain)
        assert plain_h["vary"] == "Accept-Encoding"
        tag = plain_h["etag"]
        st, h, z = raw_get(site, path, "gzip, deflate, br, zstd")
        assert st == 200 and h["content-encoding"] == "gzip", path
        assert h["vary"] == "Accept-Encoding"
        assert int(h["content-length"]) == len(z) < len(plain)
        assert gzip.decompress(z) == plain, path
        assert h["etag"] == tag[:-1] + '-gz"'
        for k in ("content-type", "cache-control", "content-security-policy"):
            assert h[k] == plain_h[k], k
        # Refused or not named: as it is.
        for ae in ("identity", "gzip;q=0", "br", "gzip;q=0, *"):
            st, h2, b = raw_get(site, path, ae)
            assert st == 200 and "content-encoding" not in h2 and b == plain, (path, ae)
        st, h2, b = raw_get(site, path, "*")
        assert "content-encoding" in h2 and gzip.decompress(b) == plain
        # HEAD: the headers of the copy it would get, no body.
        st, hh, b = raw_get(site, path, "gzip", method="HEAD")
        assert st == 200 and b == b"" and hh["content-encoding"] == "gzip"
        assert hh["content-length"] == h["content-length"] and hh["etag"] == h["etag"]
        # Either tag revalidates; the 304 names the tag of the copy asked for.
        for inm in (tag, h["etag"], "W/" + h["etag"]):
            st, h3, b = raw_get(site, path, "gzip", inm=inm)
            assert st == 304 and b == b"" and h3["etag"] == h["etag"], (path, inm)
            st, h3, b = raw_get(site, path, None, inm=inm)
            assert st == 304 and h3["etag"] == tag, (path, inm)
        st, _, b = raw_get(site, path, "gzip", inm='"0000-gz"')
        assert st == 200 and gzip.decompress(b) == plain


def test_a_small_body_is_sent_as_it_is(site):
    """A badge (SVG, about 1 KB) and its JSON for shields.io (a couple of
    hundred bytes) are kept as they are: gzip would save less than a
    second copy costs, and nothing varies."""
    for path in ("/badge/%s.svg" % site.rid, "/badge/%s.json" % site.rid):
        for _ in range(2):
            st, h, b = raw_get(site, path, "gzip")
            assert st == 200 and b[:1] in (b"<", b"{") and len(b) < 4096, path
            assert "content-encoding" not in h and "vary" not in h, path
