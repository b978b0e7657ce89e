"""Issue 37 (no page takes the site down) and issue 39 (no request waits
for a build): pages are built on a small pool of build threads, never on
the threads that serve requests, and one client address (its IPv4
address, or its IPv6 /64, as the rate limits count) holds at most two of
them at once.  Its other builds wait in the queue, suspended, holding no
thread, while other addresses are served: their kept pages at once, and
their own builds on a thread of their own.

The builds are held open with the hidden --test-hold-builds FILE (while
FILE exists, a list page's build waits before building, on its build
thread), so nothing here depends on timing."""
import json
import os
import re
import threading

import requests

from conftest import built_once, client_from, wait_for

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "static",
                         "reference", "hardware.json")
MODEL = "qwen2-5-7b"


def metric(server, name):
    m = re.search(r"^%s (\S+)$" % name, server.get("/metrics").text, re.M)
    assert m, name
    return float(m.group(1))


def test_one_address_holds_at_most_two_build_threads(make_server, tmp_path):
    hold = str(tmp_path / "hold")
    s = make_server(["--test-hold-builds", hold])
    s.wait_refreshed()
    with open(REFERENCE) as f:
        hws = sorted(json.load(f)["hardware"])
    mine, theirs = hws[:8], hws[8]
    assert s.get("/").status_code == 200                   # kept before the flood
    got, threads = {}, []

    def fetch(session, hw):
        got[hw] = session.get(s.url + "/m/%s/hw/%s" % (MODEL, hw), timeout=60)

    open(hold, "w").close()
    try:
        # Eight pages never kept, all at once from one address.
        one = [requests.Session() for _ in mine]
        for sess, hw in zip(one, mine):
            threads.append(threading.Thread(target=fetch, args=(sess, hw)))
            threads[-1].start()
        wait_for(lambda: metric(s, "llmspeed_page_builds_running") == 2 and
                 metric(s, "llmspeed_page_builds_queued") == 6,
                 what="two builds running for the address, six queued")
        # Another address is served while they are held: its kept page at
        # once (no serving thread is held by a build) ...
        other = client_from("127.2.0.1")
        r = other.get(s.url + "/", timeout=20)
        assert r.status_code == 200
        # ... and its own build gets a thread of its own, ahead of the
        # first address's queued ones.
        threads.append(threading.Thread(target=fetch, args=(other, theirs)))
        threads[-1].start()
        wait_for(lambda: metric(s, "llmspeed_page_builds_running") == 3,
                 what="the other address's build running")
        assert metric(s, "llmspeed_page_builds_queued") == 6
        assert metric(s, "llmspeed_page_builds_most_per_client") == 2
    finally:
        os.unlink(hold)
    for t in threads:
        t.join(60)
    # The queued builds were waited for, not refused; each page built once.
    for hw in mine + [theirs]:
        assert got[hw].status_code == 200, hw
        assert MODEL in got[hw].text
    assert metric(s, "llmspeed_page_builds_most_per_client") == 2
    wait_for(lambda: metric(s, "llmspeed_page_builds_running") == 0, what="the builds to end")


def test_a_missing_badge_or_card_is_built_once(make_server, tmp_path):
    """Concurrent requests for a badge or a card's SVG that is not kept
    wait on one build (suspended, holding no thread) instead of each
    building it."""
    from conftest import make_payload, new_key, sign
    hold = str(tmp_path / "hold")
    s = make_server(["--test-hold-builds", hold])
    r = s.upload(sign(make_payload(), new_key())[0])
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    s.wait_logged(rid)
    for path in ("/badge/%s.svg" % rid, "/badge/%s.json" % rid, "/card/%s.svg" % rid):
        built_once(s, path, hold)
