"""The /api page: schema/openapi.json read at start-up and shown to people,
every route with its statuses, the error codes, linked from every page's
footer, valid HTML with the headers of the other pages."""
import json
import os
import subprocess

from lxml import html as lhtml

from conftest import BIN, ROOT, Server, validate_html

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SAME_HEADERS = ("Content-Type", "Cache-Control", "Content-Security-Policy",
                "X-Content-Type-Options", "Referrer-Policy")


def spec():
    with open(os.path.join(ROOT, "schema", "openapi.json"), encoding="utf-8") as f:
        return json.load(f)


def operations(s):
    for path, item in s["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield method.upper(), path, op


def deref(s, node):
    while isinstance(node, dict) and "$ref" in node:
        target = s
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def assets_with(tmp_path, openapi_text):
    """An --assets folder: the repository's, with openapi_text as the API
    description (None: none at all)."""
    d = tmp_path / "assets"
    d.mkdir()
    for name in ("templates", "static", "migrations"):
        os.symlink(os.path.join(ROOT, name), str(d / name))
    if openapi_text is not None:
        (d / "schema").mkdir()
        (d / "schema" / "openapi.json").write_text(openapi_text, encoding="utf-8")
    return str(d)


def test_api_page_is_valid_and_sent_like_the_other_pages(server, tmp_path):
    r = server.get("/api")
    assert r.status_code == 200
    ok, report = validate_html(r.text, tmp_path)
    assert ok, report
    other = server.get("/privacy")
    for h in SAME_HEADERS:
        assert r.headers[h] == other.headers[h], h
    assert r.headers["ETag"]
    assert server.get("/api", headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    head = requests_head(server, "/api")
    assert head.status_code == 200 and head.content == b""


def requests_head(server, path):
    import requests
    return requests.head(server.url + path, timeout=10)


def test_every_route_and_status_of_openapi_json_is_on_the_page(server):
    s = spec()
    doc = lhtml.fromstring(server.get("/api").content)
    seen = 0
    for method, path, op in operations(s):
        heads = doc.xpath('//h3[@id=$id]', id=op["operationId"])
        assert len(heads) == 1, op["operationId"]
        assert heads[0].text_content().startswith("%s %s" % (method, path))
        section = heads[0].getparent()
        statuses = [dt.text_content().strip() for dt in section.xpath(".//h4[.='Responses']/following-sibling::dl[1]/dt")]
        assert statuses == list(op["responses"]), op["operationId"]
        for status, resp in op["responses"].items():
            desc = deref(s, resp)["description"]
            assert desc in section.text_content(), (op["operationId"], status)
        for p in op.get("parameters", []):
            assert deref(s, p)["name"] in section.text_content()
        seen += 1
    assert seen == len(doc.xpath("//h3[@id]")) and seen >= 20
    codes = s["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"]["enum"]
    listed = [c.text_content() for c in doc.xpath('//section[h2[@id="errors"]]//li/code')]
    assert listed == codes


def test_the_introduction_is_written_for_visitors(server):
    """The page opens with what the API is for, not with where its code
    lives: the first paragraphs name no source file."""
    doc = lhtml.fromstring(server.get("/api").content)
    toc = doc.xpath("//nav[@class='toc']")[0]
    intro = " ".join(e.text_content() for e in toc.itersiblings(preceding=True))
    assert "upload a signed benchmark run" in intro, intro
    for developer in ("server/router.c", "router.c", "schema/API.md", "route table"):
        assert developer not in intro, developer


def test_footer_links_to_the_api_page(server):
    for path in ("/", "/glossary", "/outliers", "/api", "/r/r_zzzzzzzzzzz"):
        doc = lhtml.fromstring(server.get(path).content)
        assert doc.xpath('//footer//a[@href="/api"]'), path


def test_the_page_is_made_from_the_file_read_at_start(tmp_path):
    s = spec()
    s["paths"]["/healthz"]["get"]["summary"] = "Is it up? <script>alert(1)</script>"
    s["info"]["summary"] = "A changed summary & more."
    assets = assets_with(tmp_path, json.dumps(s))
    server = Server(str(tmp_path), ["--assets", assets])
    try:
        r = server.get("/api")
        assert r.status_code == 200
        assert "A changed summary &amp; more." in r.text
        assert "Is it up? &lt;script&gt;alert(1)&lt;/script&gt;" in r.text
        assert "<script>" not in r.text
    finally:
        server.stop()


def test_a_missing_or_broken_description_stops_start_up(tmp_path):
    for name, text in (("missing", None), ("broken", "{not json")):
        d = tmp_path / name
        d.mkdir()
        assets = assets_with(d, text)
        out = subprocess.run([BIN, "--listen", "127.0.0.1:1", "--db", str(d / "x.db"), "--assets", assets],
                             capture_output=True, text=True, timeout=20)
        assert out.returncode != 0, name
        assert os.path.join(assets, "schema", "openapi.json") in out.stderr, out.stderr
