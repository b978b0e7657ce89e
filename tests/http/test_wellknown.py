"""/robots.txt (RFC 9309) and /.well-known/security.txt (RFC 9116)."""
import datetime
import re

from conftest import make_payload, sign
from test_openapi import check


def robots_rules(text):
    """The (kind, path pattern) rules of the group for every crawler."""
    rules, agents = [], []
    for line in text.split("\n"):
        line = line.split("#", 1)[0].strip()
        if not line or ":" not in line:
            continue
        k, v = (x.strip() for x in line.split(":", 1))
        if k.lower() == "user-agent":
            agents.append(v)
        elif k.lower() in ("allow", "disallow") and "*" in agents:
            rules.append((k.lower(), v))
    return rules


def allowed(rules, path):
    """RFC 9309 section 2.2.2: the longest matching rule wins, allow on a tie;
    '*' matches any run of characters and a final '$' the end."""
    best = ("allow", -1)
    for kind, pattern in rules:
        rx = "^" + re.escape(pattern).replace(r"\*", ".*")
        if rx.endswith(r"\$"):
            rx = rx[:-2] + "$"
        if re.match(rx, path) and (len(pattern) > best[1] or (len(pattern) == best[1] and kind == "allow")):
            best = (kind, len(pattern))
    return best[0] == "allow"


def test_robots_keeps_crawlers_off_variants_and_names_the_sitemap(make_server):
    server = make_server(["--base-url", "https://llm-speed.example/"])
    r = server.get("/robots.txt")
    assert r.status_code == 200
    check(r, "GET", "/robots.txt")
    assert "Sitemap: https://llm-speed.example/sitemap.xml\n" in r.text
    rules = robots_rules(r.text)
    rid = server.upload(sign(make_payload())[0]).json()["id"]
    for path in ("/", "/r/%s" % rid, "/m/qwen3-coder-30b-a3b", "/hw/m3-ultra",
                 "/m/qwen3-coder-30b-a3b/hw/m3-ultra", "/models", "/hardware",
                 "/cheatsheet", "/glossary", "/methodology", "/privacy", "/fit", "/api",
                 "/badge/%s.svg" % rid, "/feed.atom", "/static/site.css"):
        assert allowed(rules, path), path
    for path in ("/?sort=prefill", "/m/qwen3-coder-30b-a3b?sort=ttft",
                 "/hw/m3-ultra?after=abc", "/?backend=mlx", "/search?q=qwen",
                 "/compare?r=r_a,r_b", "/r/%s.json" % rid, "/r/%s.jws" % rid, "/index.csv",
                 "/m/x.json?suite=suite-v1", "/export", "/log/tile/0/000", "/api/v1/runs",
                 "/metrics", "/r/%s?after=3" % rid):
        assert not allowed(rules, path), path


def test_security_txt_always_answers_with_contact_and_expiry(make_server):
    server = make_server(["--base-url", "https://llm-speed.example"])
    r = server.get("/.well-known/security.txt")
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/plain; charset=utf-8"
    check(r, "GET", "/.well-known/security.txt")
    fields = dict(line.split(": ", 1) for line in r.text.strip().split("\n"))
    assert fields["Contact"] == "https://llm-speed.example/privacy#reporting"
    assert fields["Canonical"] == "https://llm-speed.example/.well-known/security.txt"
    expires = datetime.datetime.strptime(fields["Expires"], "%Y-%m-%dT%H:%M:%S.000Z")
    days = (expires - datetime.datetime.utcnow()).days
    assert 100 < days < 365                         # RFC 9116: less than a year ahead
    assert r.text.count("Expires:") == 1
    # The page it points at has that section.
    page = server.get("/privacy")
    assert 'id="reporting"' in page.text and "/.well-known/security.txt" in page.text

    other = make_server(["--security-contact", "mailto:security@llm-speed.example"])
    t = other.get("/.well-known/security.txt").text
    assert t.startswith("Contact: mailto:security@llm-speed.example\n")
    assert 'href="mailto:security@llm-speed.example"' in other.get("/privacy").text
