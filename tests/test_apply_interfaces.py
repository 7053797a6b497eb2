"""One update, three ways in: `cad-lsp apply`, the editors' `cad.applyUpdate`, and the HTTP endpoint with the
official `openai` client (streamed and not) give the same merged file.

Every path teacher-forces the model through the program of the update's merge (``bench.scripted`` for the
server, ``TeacherEngine`` in process), so the expected file is known without a model: the file with the
update's change made by hand.
"""

from __future__ import annotations

import json
import sys

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig

from cad_lsp.lsp.requests import APPLY_COMMAND
from cad_lsp.program.edits import apply_text_edits
from tests.http_server import TeacherEngine, running
from tests.test_server import applied_to, initialize, make_client, open_document, wait_until

FILE = "".join(f"def f{i}(x):\n    y = x * {i}\n    return y + {i}\n\n\n" for i in range(60))
UPDATE = "# ... existing code ...\ndef f30(x):\n    y = x * 30\n    y = abs(y)  # 😀 never negative\n" \
         "    return y + 30\n# ... existing code ...\n"
EXPECTED = FILE.replace("    y = x * 30\n", "    y = x * 30\n    y = abs(y)  # 😀 never negative\n")


def through_the_command_line(tmp_path, capsys, monkeypatch, tiny_engine) -> str:
    from cad_lsp import backends
    from cad_lsp.cli import main

    monkeypatch.setattr(backends, "open_engine", lambda *a, **k: TeacherEngine(tiny_engine))
    path, update = tmp_path / "shapes.py", tmp_path / "update.txt"
    path.write_text(FILE, encoding="utf-8")
    update.write_text(UPDATE, encoding="utf-8")
    assert main(["apply", str(path), "--update", str(update), "--json", "--keep-warm", "0"]) == 0
    return json.loads(capsys.readouterr().out)["text"]


async def through_the_editor() -> str:
    server = [sys.executable, "-m", "bench.scripted", "--model", "random:tiny"]
    client = await ClientServerConfig(server_command=server, client_factory=make_client).start()
    try:
        await initialize(client, "visual-studio-code", {"needsConfirmation": False})
        uri = open_document(client, FILE, "shapes.py")
        answer = await client.protocol.send_request_async(lsp.WORKSPACE_EXECUTE_COMMAND, lsp.ExecuteCommandParams(
            command=APPLY_COMMAND, arguments=[{"uri": uri, "version": 1, "update": UPDATE}]))
        assert answer["applied"], answer
        await wait_until(lambda: applied_to(client, uri))
        (edit,) = applied_to(client, uri)
        return apply_text_edits(FILE, edit.document_changes[0].edits, "utf-16")
    finally:
        await client.shutdown_session()
        await client.stop()


def through_http(tiny_engine) -> tuple[str, str]:
    from openai import OpenAI

    with running(TeacherEngine(tiny_engine)) as served:
        client = OpenAI(base_url=served.url, api_key="unused", max_retries=0)
        message = [{"role": "user", "content": f"<code>{FILE}</code>\n<update>{UPDATE}</update>"}]
        whole = client.chat.completions.create(model="morph-v3-fast", messages=message).choices[0].message.content
        stream = client.chat.completions.create(model="morph-v3-fast", messages=message, stream=True)
        streamed = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    return whole, streamed


async def test_the_command_line_the_editor_and_http_give_the_same_file(tmp_path, capsys, monkeypatch, tiny_engine):
    command_line = through_the_command_line(tmp_path, capsys, monkeypatch, tiny_engine)
    editor = await through_the_editor()
    whole, streamed = through_http(tiny_engine)
    assert command_line == editor == whole == streamed == EXPECTED
