"""The clock the tests set: the hidden --test-clock FILE (util/timefmt.c's
time_now() reads FILE: a frozen time, or "+N"/"-N" seconds from the real
clock).  Only that flag sets it: no environment variable, nothing in --help."""
import datetime
import subprocess

from conftest import BIN, ROOT, TestClock, make_payload, sign

Y2090 = 3786912000          # 2090-01-01T00:00:00Z
Y2026 = 1767225600          # 2026-01-01T00:00:00Z


def received(server):
    token, _ = sign(make_payload())
    r = server.upload(token)
    assert r.status_code == 201, r.text
    return server.get("/r/%s.json" % r.json()["id"]).json()["received_at"]


def unix(ts):
    return int(datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ")
               .replace(tzinfo=datetime.timezone.utc).timestamp())


def test_test_clock_sets_received_dates_and_the_created_at_window(make_server):
    s = make_server(clock=True)
    first = received(s)
    s.clock.advance(3 * 86400)
    assert unix(received(s)) - unix(first) >= 3 * 86400
    s.clock.freeze(Y2090)
    assert received(s) == "2090-01-01T00:00:00Z"
    # A run made now is more than a day ahead of a clock stopped in 2026.
    s.clock.freeze(Y2026)
    token, _ = sign(make_payload())
    r = s.upload(token)
    assert r.status_code == 422, r.text
    assert r.json()["error"]["field"] == "created_at"
    assert "future by the server's clock" in r.json()["error"]["message"]


def test_only_the_flag_sets_the_clock(make_server, tmp_path):
    clock = TestClock(str(tmp_path / "clock"))
    clock.freeze(Y2090)
    # No environment variable does it, whatever its name suggests.
    s = make_server(env={"LLMSPEED_TEST_CLOCK": clock.path, "LLMSPEED_CLOCK": clock.path})
    assert not received(s).startswith("2090-")
    out = subprocess.run([BIN, "--help"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0 and "clock" not in out.stdout


def test_a_test_clock_file_without_a_time_stops_the_daemon(tmp_path):
    bad = tmp_path / "clock"
    for text in (None, "soon\n", "", "12 34\n"):
        if text is not None:
            bad.write_text(text)
        out = subprocess.run([BIN, "--listen", "127.0.0.1:1", "--db", str(tmp_path / "x.db"),
                              "--assets", ROOT, "--test-clock", str(bad)],
                             capture_output=True, text=True, timeout=10)
        assert out.returncode == 2, (text, out.stderr)
        assert "--test-clock" in out.stderr and "whole number of seconds" in out.stderr
