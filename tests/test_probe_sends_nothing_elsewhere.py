"""``probe`` sends nothing where it was not told to (the project's fake server, on 127.0.0.1 only).

Minor findings of ../shared/research/hostile_inputs_2.md ("probe vs hostile server"): a redirect of
/v1/models (302) or of the completion (307) to another port was followed and that server graded
without saying so; ``http://h/normal?api_key=...`` became ``POST /normal?api_key=.../v1/chat/completions``
and ``#frag`` dropped the whole path; URL user:pass silently replaced ``--api-key``; a served model id
with a newline forged report lines.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator, List

import pytest

from ascend_doctor.cli import main
from ascend_doctor.render.sanitize import is_safe

from .clirunner import make_runner
from .fake_openai_server import Behaviour, FakeServer

FAST = ("--requests", "1", "--concurrency", "1", "--max-tokens", "16", "--timeout", "3", "--no-progress")
KEY = "sk-never-elsewhere-77"


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: List[FakeServer] = []

    def start(**behaviour: Any) -> FakeServer:
        server = FakeServer(Behaviour(**behaviour)).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def probe(*args: str, env: Any = None):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, ["probe", *args, *FAST], catch_exceptions=False, env=env)


def test_redirect_to_another_port_is_not_followed(serve: Any) -> None:
    elsewhere = serve()
    pointing = serve(redirect_to=elsewhere.url)
    result = probe(pointing.url, "--format", "json", env={"ASCEND_DOCTOR_API_KEY": KEY})
    assert elsewhere.requests == []  # nothing at all was sent there
    report = json.loads(result.stdout)
    assert result.exit_code != 0
    assert "redirected to " + elsewhere.url in json.dumps(report) and "--follow-redirects" in json.dumps(report)
    assert KEY not in result.output


def test_follow_redirects_follows_without_the_api_key(serve: Any) -> None:
    elsewhere = serve()
    pointing = serve(redirect_to=elsewhere.url)
    result = probe(pointing.url, "--follow-redirects", "--format", "json", env={"ASCEND_DOCTOR_API_KEY": KEY})
    assert result.exit_code == 0, result.output
    assert elsewhere.requests, "followed"
    assert all(h.get("authorization") is None for h in elsewhere.httpd.headers_seen)  # the key stays home
    assert all(h.get("authorization") == f"Bearer {KEY}" for h in pointing.httpd.headers_seen)


def test_the_query_string_and_base_path_are_kept_as_given(serve: Any) -> None:
    server = serve()
    result = probe(server.url + "/v1?tenant=a&api_key=sk-in-query#frag", "--format", "json")
    assert result.exit_code == 0, result.output
    paths = {path for _method, path, _body in server.requests}
    assert "/v1/models?tenant=a&api_key=sk-in-query" in paths
    assert "/v1/chat/completions?tenant=a&api_key=sk-in-query" in paths
    assert all("frag" not in p and p.count("?") == 1 for p in paths)
    assert "sk-in-query" not in result.output  # the query's secret is still masked in the report


def test_a_base_path_before_v1_is_kept(serve: Any) -> None:
    server = serve()
    probe(server.url + "/gateway/v1/", "--format", "json")
    assert {p for _m, p, _b in server.requests} >= {"/gateway/v1/models"}


def test_credentials_in_the_url_and_an_api_key_are_a_usage_error(serve: Any) -> None:
    server = serve()
    url = server.url.replace("http://", "http://admin:pa55@")
    for args, env in ((("--api-key", KEY), None), ((), {"ASCEND_DOCTOR_API_KEY": KEY})):
        result = probe(url, *args, env=env)
        assert result.exit_code == 2 and "give one of them" in result.output
        assert "pa55" not in result.output and KEY not in result.output
    assert server.requests == []


def test_a_model_id_with_a_newline_or_escape_cannot_forge_a_line(serve: Any) -> None:
    hostile = "m\nFAKE: PASS\x1b]0;T\x07"
    server = serve(models_raw=json.dumps({"object": "list", "data": [{"id": hostile, "owned_by": "vllm\x1b[2J"}]}),
                   model=hostile)
    result = probe(server.url, "-v")
    assert is_safe(result.output), result.output
    assert re.search(r"^\s*FAKE: PASS", result.output, re.MULTILINE) is None
    assert "m^JFAKE: PASS^[]0;T^G" in result.output
    as_json = probe(server.url, "--format", "json")
    assert hostile not in as_json.stdout and "\\u001b" not in as_json.stdout
