"""The language server: pure request logic, then end to end over stdio as VS Code and as Neovim.

The server runs ``random:tiny``; random weights write arbitrary but valid
programs, so each edit is checked against the same greedy edit run in
process (``tiny_engine``): the editor must end up with exactly the
resolver's text.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from dataclasses import replace

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities, make_test_lsp_client

from cad_lsp.lsp.documents import Documents
from cad_lsp.lsp.edit_flow import workspace_edit
from cad_lsp.lsp.progress import progress_message
from cad_lsp.lsp.requests import (
    EDIT_COMMAND,
    PRESETS,
    Options,
    RequestError,
    ai_instructions,
    check_selection,
    kind_wanted,
    merge_options,
    parse_edit_request,
    selected_lines,
)
from cad_lsp.lsp.server import serve
from cad_lsp.lsp.session import Session
from cad_lsp.program import apply_program, split_lines
from cad_lsp.program.edits import apply_text_edits, units

MAX_TOKENS = 24
SERVER = [sys.executable, "-m", "cad_lsp", "serve", "--model", "random:tiny"]
NAME = "emoji.py"  # the file name is part of the prompt, so it is part of each case
# The last line has no terminator and an emoji: a range or an edit ending there
# is 12 UTF-16 units but 14 UTF-8 bytes long.
EMOJI = 'def f(x):\n    return x + 1\n\ny = "😀 one"\ny = "😀 two"'
AI_DOC = 'x = 1\n# AI: use a constant\ny = x + 1  // AI: name it better\nz = 3\n'
on_module_loop = pytest.mark.asyncio(loop_scope="module")


# ---------------------------------------------------------------------------
# Pure logic


def rng(a: int, b: int, c: int, d: int) -> lsp.Range:
    return lsp.Range(start=lsp.Position(line=a, character=b), end=lsp.Position(line=c, character=d))


@pytest.mark.parametrize("r, lines", [
    (rng(2, 0, 5, 0), (3, 5)),  # ends at the start of line 6: line 6 is not selected
    (rng(2, 3, 5, 1), (3, 6)),
    (rng(2, 0, 2, 0), (3, 3)),  # an empty range still names its line
    (rng(2, 4, 2, 9), (3, 3)),
])
def test_selected_lines(r, lines):
    assert selected_lines(r) == lines


def test_check_selection_counts_in_the_negotiated_encoding():
    last = EMOJI.rsplit("\n", 1)[1]
    assert check_selection(EMOJI, rng(2, 0, 4, units(last, "utf-8")), "utf-8") == (3, 5)
    assert check_selection(EMOJI, rng(2, 0, 4, units(last, "utf-16")), "utf-16") == (3, 5)
    with pytest.raises(RequestError, match="not in the document"):
        check_selection(EMOJI, rng(2, 0, 4, units(last, "utf-8")), "utf-16")  # past the line's end
    with pytest.raises(RequestError, match="not in the document"):
        check_selection(EMOJI, rng(2, 0, 9, 0), "utf-16")
    assert check_selection("a\nb\n", rng(0, 0, 2, 0), "utf-16") == (1, 2)
    with pytest.raises(RequestError, match="past the document"):
        check_selection("a\nb\n", rng(2, 0, 2, 0), "utf-16")


def test_progress_message_says_when_the_document_is_still_being_read():
    from cad_lsp.engine import Stats

    reading = Stats(prompt_tokens=5000, cached_tokens=100, prefill_tokens=2048)
    assert progress_message(reading) == "reading the document: 2048 of 4900 tokens"
    decoding = Stats(prompt_tokens=5000, prefill_tokens=5000, forwards=2, sampled_tokens=3, forced_tokens=4,
                     spliced_tokens=40)
    assert progress_message(decoding) == "7 tokens generated, 40 copied"


def test_ai_instructions_from_any_comment_syntax():
    text = ("x = 1  # AI: use a constant\n"
            "// AI: name it better\n"
            "-- AI: add an index\n"
            "/* AI: explain this */\n"
            "<!-- AI: fix the markup -->\n"
            "# AI: use a constant\n"  # a repeat is offered once
            "# AI:\n"  # and an empty one not at all
            "say('AI: not a comment')\n")
    assert ai_instructions(text) == ["use a constant", "name it better", "add an index", "explain this",
                                     "fix the markup"]


def test_the_ai_comment_that_gave_the_instruction_is_removed():
    from cad_lsp.lsp.edit_flow import result_ops
    from cad_lsp.lsp.requests import EditRequest, remove_ai_comment
    from cad_lsp.program import Copy, Gen
    from cad_lsp.program import resolve as resolve_ops

    text = ("def f(x):\r\n"
            "    # AI: add hints\r\n"
            "    return x  # AI: add hints\r\n"
            "y = 1  // AI: other\n"
            "/* AI: add hints */")
    assert remove_ai_comment(text, "add hints") == "def f(x):\r\n    return x\r\ny = 1  // AI: other\n"
    document = "a = 1\n# AI: name it\nb = 2\n"
    request = EditRequest("file:///x.py", 1, rng(0, 0, 3, 0), "name it", ai_comment=True)
    ops = [Copy(1, 2), Gen("c = 3\n"), Copy(3, 3)]  # the model kept the comment
    assert resolve_ops(result_ops(ops, document, 1, 3, request, False), document, 1, 3) == "a = 1\nc = 3\nb = 2\n"
    assert result_ops(ops, document, 1, 3, request, True) == ops  # keepAiComments
    assert result_ops(ops, document, 1, 3, replace(request, ai_comment=False), False) == ops  # a preset's edit


def test_merge_options_prefers_initialization_options_and_reports_bad_ones():
    base = Options(model="smollm2", max_tokens=100)
    merged, problems = merge_options(base, {"model": "random:tiny", "maxTokens": 7, "needsConfirmation": False,
                                            "maxDocuments": 2, "device": None, "dtype": 3, "colour": "red"})
    assert merged == Options(model="random:tiny", max_tokens=7, needs_confirmation=False, max_documents=2)
    assert len(problems) == 2 and "dtype" in problems[0] and "colour" in problems[1]
    assert merge_options(base, {"maxTokens": True})[0].max_tokens == 100  # a bool is not a count
    assert merge_options(base, None) == (base, [])


@pytest.mark.parametrize("value, error", [
    ([], "one object"),
    ({"uri": 1}, "uri"),
    ({"uri": "file:///a", "version": "1"}, "version"),
    ({"uri": "file:///a", "version": 1, "instruction": " "}, "empty"),
    ({"uri": "file:///a", "version": 1, "instruction": "x", "range": {"start": {"line": 0, "character": 0}}},
     "range.end"),
    ({"uri": "file:///a", "version": 1, "instruction": "x",
      "range": {"start": {"line": 2, "character": 0}, "end": {"line": 1, "character": 0}}}, "before it starts"),
])
def test_parse_edit_request_refuses(value, error):
    with pytest.raises(RequestError, match=error):
        parse_edit_request(value)


def test_documents_follow_lsp_lines_not_splitlines():
    docs = Documents()
    docs.open("u", 1, "a\x0cb\nc 😀 d\n")  # a form feed is not a line end for LSP
    change = lsp.TextDocumentContentChangePartial(range=rng(1, 7, 1, 8), text="D")  # after the emoji, UTF-8
    docs.change("u", 2, [change], "utf-8")
    assert docs.get("u").text == "a\x0cb\nc 😀 D\n" and docs.get("u").version == 2
    past_the_end = lsp.TextDocumentContentChangePartial(range=rng(1, 9, 1, 99), text="!")  # LSP clamps these
    docs.change("u", 3, [past_the_end], "utf-8")
    assert docs.get("u").text == "a\x0cb\nc 😀 D!\n"
    docs.change("u", 4, [lsp.TextDocumentContentChangeWholeDocument(text="😀")], "utf-8")
    assert docs.get("u").text == "😀"
    with pytest.raises(ValueError):  # inside the emoji's UTF-16 surrogate pair
        docs.change("u", 5, [lsp.TextDocumentContentChangePartial(range=rng(0, 1, 0, 1), text="x")], "utf-16")
    assert docs.get("u") is None  # out of sync: forgotten rather than wrong


def test_workspace_edit_is_versioned_and_annotated_on_request():
    edits = [lsp.TextEdit(range=rng(0, 0, 1, 0), new_text="x\n")]
    plain = workspace_edit("file:///a", 3, edits, "cad-lsp: go", "a lines 1-1", annotate=False)
    (change,) = plain.document_changes
    assert change.text_document.version == 3 and change.edits == edits and plain.change_annotations is None
    annotated = workspace_edit("file:///a", 3, edits, "cad-lsp: go", "a lines 1-1", annotate=True)
    (edit,) = annotated.document_changes[0].edits
    assert annotated.change_annotations[edit.annotation_id].needs_confirmation is True


def test_kind_filter():
    assert kind_wanted(None) and kind_wanted(["refactor"]) and kind_wanted(["refactor.rewrite"])
    assert not kind_wanted(["quickfix"]) and not kind_wanted(["refactor.extract"])


def test_tcp_listens_on_loopback_only():
    with pytest.raises(SystemExit, match="refusing to listen on '0.0.0.0'"):
        serve(tcp=True, host="0.0.0.0")


# ---------------------------------------------------------------------------
# End to end


def make_client() -> LanguageClient:
    """The pytest-lsp client plus a workspace/applyEdit handler that records and accepts."""
    client = make_test_lsp_client()
    client.applied = []

    @client.feature(lsp.WORKSPACE_APPLY_EDIT)
    def apply_edit(ls: LanguageClient, params: lsp.ApplyWorkspaceEditParams):
        ls.applied.append(params)
        return lsp.ApplyWorkspaceEditResult(applied=True)

    return client


def encoding_of(result: lsp.InitializeResult) -> str:
    kind = result.capabilities.position_encoding
    return getattr(kind, "value", kind) or "utf-16"


async def initialize(client: LanguageClient, preset: str, options: dict | None = None) -> str:
    result = await client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities(preset), root_uri="file:///work", initialization_options=options))
    client.encoding = encoding_of(result)
    client.preset = preset
    return client.encoding


@pytest_lsp.fixture(scope="module", params=["visual-studio-code", "neovim"],
                    config=ClientServerConfig(server_command=[*SERVER, "--max-tokens", str(MAX_TOKENS)],
                                              client_factory=make_client))
async def client(request, lsp_client: LanguageClient):
    await initialize(lsp_client, request.param)
    yield
    await lsp_client.shutdown_session()


@contextlib.asynccontextmanager
async def server(preset: str, *args: str, options: dict | None = None, client_factory=make_client):
    """A server of its own, for tests that need other settings or a fresh start."""
    client = await ClientServerConfig(server_command=[*SERVER, *args], client_factory=client_factory).start()
    try:
        await initialize(client, preset, options)
        yield client
    finally:  # shut down even when the test failed: a server never told to shut down keeps running
        try:
            await asyncio.wait_for(client.shutdown_session(), 30)
        finally:
            await client.stop()


_count = 0


def open_document(client: LanguageClient, text: str, name: str = NAME, language: str = "python") -> str:
    """Open ``text`` under a fresh URI (same file name, so the same prompt)."""
    global _count
    _count += 1
    uri = f"file:///work/case{_count}/{name}"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)))
    return uri


def line_range(text: str, first: int, last: int, encoding: str) -> lsp.Range:
    """Lines first..last as an editor sends them: up to the next line's start, or the end of the text."""
    lines = split_lines(text)
    if last < len(lines):
        return rng(first - 1, 0, last, 0)
    return rng(first - 1, 0, last - 1, units(lines[-1].rstrip("\r\n"), encoding))


def range_json_of(r: lsp.Range) -> dict:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def edit_args(uri: str, version: int, r: lsp.Range, instruction: str) -> dict:
    return {"uri": uri, "version": version, "instruction": instruction, "range": range_json_of(r)}


async def code_actions(client: LanguageClient, uri: str, r: lsp.Range, only: list[str] | None = None) -> list[dict]:
    """textDocument/codeAction as plain JSON.

    lsprotocol reads any action that carries a command as a bare Command (its
    union hook only looks for a "command" key), so the result is not structured.
    """
    params = lsp.CodeActionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), range=r,
                                  context=lsp.CodeActionContext(diagnostics=[], only=only))
    msg_id = f"actions-{time.monotonic_ns()}"
    future = client.protocol.send_request(lsp.TEXT_DOCUMENT_CODE_ACTION, params, msg_id=msg_id)
    client.protocol._result_types.pop(msg_id, None)
    return await asyncio.wrap_future(future) or []


async def resolve(client: LanguageClient, action: dict) -> dict:
    """The command of a listed action: as listed, or from codeAction/resolve when the listing left it out."""
    if "command" in action:
        return action["command"]
    resolved = await client.code_action_resolve_async(
        lsp.CodeAction(title=action["title"], kind=action["kind"], data=action["data"]))
    return {"title": resolved.command.title, "command": resolved.command.command,
            "arguments": list(resolved.command.arguments)}


async def execute(client: LanguageClient, args: list, msg_id: str | None = None):
    params = lsp.ExecuteCommandParams(command=EDIT_COMMAND, arguments=args)
    return await client.protocol.send_request_async(lsp.WORKSPACE_EXECUTE_COMMAND, params, msg_id=msg_id)


def applied_to(client: LanguageClient, uri: str) -> list[lsp.WorkspaceEdit]:
    return [p.edit for p in client.applied if p.edit.document_changes[0].text_document.uri == uri]


async def wait_until(predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.02)


def edit_progress(client: LanguageClient, instruction: str) -> list[list]:
    """Progress values of every edit with this instruction, one list per token."""
    return [values for values in client.progress_reports.values()
            if values and getattr(values[0], "title", "").endswith(instruction)]


# (selection, instruction, what the random model's program does there with MAX_TOKENS)
CASES = [
    ((3, 5), "Simplify", "applied"),  # deletes line 3 and the emoji line without a terminator
    ((2, 5), "Simplify", "incomplete"),  # an unclosed <gen> runs into maxTokens
    ((4, 4), "Simplify", "no change"),  # copies the line
]


@on_module_loop
@pytest.mark.parametrize("lines, instruction, expected_kind", CASES)
async def test_edit_matches_the_resolver(client: LanguageClient, tiny_engine, lines, instruction, expected_kind):
    """Sync, code action, resolve, command, progress and edit, checked against the in-process program."""
    encoding = client.encoding
    # Open a placeholder and reach EMOJI by an incremental change after the emoji,
    # so the server's copy depends on the position encoding too.
    placeholder = EMOJI.replace("two", "TWO!")
    uri = open_document(client, placeholder)
    prefix = units('y = "😀 ', encoding)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(range=rng(4, prefix, 4, prefix + 4), text="two")]))

    r = line_range(EMOJI, *lines, encoding)
    actions = await code_actions(client, uri, r)
    assert [a["title"] for a in actions] == list(PRESETS)
    action = next(a for a in actions if a["title"] == instruction)
    assert action["kind"] == "refactor.rewrite" and action["data"] == {**edit_args(uri, 2, r, instruction),
                                                                      "background": True}
    # Neovim resolves commands, so the listing carries only data; VS Code resolves
    # only edits, so the command comes with the listing.
    assert ("command" in action) == (client.preset == "visual-studio-code")
    command = await resolve(client, action)
    assert command["command"] == EDIT_COMMAND and command["arguments"] == [action["data"]]

    runs_before = len(edit_progress(client, instruction))
    # The action's command is answered at once; the edit and one message follow (a generic client such as
    # eglot gives up on a request after 10 s).
    shown = len(client.messages)
    started = await execute(client, command["arguments"])
    assert started["started"] is True and f"lines {lines[0]}-{lines[1]}" in started["message"], started
    await wait_until(lambda: len(client.messages) > shown)
    await asyncio.sleep(0.2)  # a second message would have come by now
    (outcome,) = client.messages[shown:]
    from_action = applied_to(client, uri)
    # A client that waits (the project's own, bench serve) gets the whole outcome as the answer.
    result = await execute(client, [edit_args(uri, 2, r, instruction)])

    expected = tiny_engine.edit(EMOJI, *lines, instruction, name=NAME, max_tokens=MAX_TOKENS)
    after = apply_program(expected.ops, EMOJI, *lines)
    kind = "incomplete" if not expected.complete else "no change" if after == EMOJI else "applied"
    assert kind == expected_kind, f"the random model's program changed ({expected.program!r}): pick another case"
    received = applied_to(client, uri)
    stats = result["stats"]  # the model ran, whatever became of its program
    assert stats["prompt_tokens"] == expected.stats.prompt_tokens
    assert stats["sampled_tokens"] + stats["forced_tokens"] == expected.stats.sampled_tokens + expected.stats.forced_tokens
    if kind == "applied":
        assert result["applied"] is True, result
        assert outcome.type == lsp.MessageType.Info and outcome.message == f"cad-lsp: {result['message']}"
        assert len(from_action) == 1 and received == from_action * 2  # the same edit from both paths
        (edit, _) = received
        (change,) = edit.document_changes
        assert change.text_document.version == 2
        assert apply_text_edits(EMOJI, change.edits, encoding) == after
        annotated = client.preset == "visual-studio-code"  # has changeAnnotationSupport; confirmation is on
        ids = {getattr(e, "annotation_id", None) for e in change.edits}
        if annotated:
            (annotation_id,) = ids
            assert edit.change_annotations[annotation_id].needs_confirmation is True
            assert instruction in edit.change_annotations[annotation_id].label
        else:
            assert ids == {None} and not edit.change_annotations
    else:
        assert result["applied"] is False and received == []
        assert ("not finished" if kind == "incomplete" else "no change") in result["message"]
        assert outcome.message == f"cad-lsp: {result['message']}"
        assert client.messages[-1].message == outcome.message

    # this case's own progress, once for each path (earlier cases with the same instruction have ended already)
    await wait_until(lambda: len(edit_progress(client, instruction)) == runs_before + 2
                     and edit_progress(client, instruction)[-1][-1].kind == "end", timeout=10)
    for values in edit_progress(client, instruction)[-2:]:
        assert values[0].kind == "begin" and values[0].cancellable and values[-1].kind == "end"
        assert [v.kind for v in values].count("end") == 1


@on_module_loop
async def test_ai_comment_offers_its_instruction(client: LanguageClient):
    uri = open_document(client, AI_DOC, "ai.py")
    actions = await code_actions(client, uri, rng(1, 0, 3, 0))
    assert [a["title"] for a in actions] == ["AI: use a constant", "AI: name it better", *PRESETS]
    action = actions[1]
    assert action["data"] == {**edit_args(uri, 1, rng(1, 0, 3, 0), "name it better"), "aiComment": True,
                              "background": True}
    resolved = await client.code_action_resolve_async(lsp.CodeAction(title=action["title"], data=action["data"]))
    assert resolved.command.command == EDIT_COMMAND and list(resolved.command.arguments) == [action["data"]]

    assert await code_actions(client, uri, rng(1, 0, 3, 0), only=[lsp.CodeActionKind.QuickFix]) == []
    assert len(await code_actions(client, uri, rng(1, 0, 3, 0), only=[lsp.CodeActionKind.Refactor])) == 6
    assert await code_actions(client, uri, rng(1, 2, 1, 2)) == []  # an empty range offers nothing


@on_module_loop
async def test_stale_version_applies_nothing(client: LanguageClient):
    uri = open_document(client, EMOJI)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(range=rng(0, 0, 0, 0), text="# new\n")]))
    result = await execute(client, [edit_args(uri, 1, line_range(EMOJI, 3, 5, client.encoding), "Simplify")])
    assert result["applied"] is False and "stale" in result["message"]
    assert applied_to(client, uri) == []
    assert any("stale" in m.message and m.type == lsp.MessageType.Warning for m in client.messages)


@on_module_loop
async def test_bad_requests_are_answered_and_the_server_lives_on(client: LanguageClient):
    uri = open_document(client, EMOJI)
    good = edit_args(uri, 1, rng(0, 0, 1, 0), "Simplify")
    for args, error in [  # well-formed, but not for this document: the user is told
        ([{**good, "uri": "file:///nowhere.py"}], "not open"),
        ([edit_args(uri, 1, rng(0, 0, 9, 0), "Simplify")], "not in the document"),
        ([edit_args(uri, 1, rng(0, 0, 0, 99), "Simplify")], "not in the document"),
    ]:
        result = await execute(client, args)
        assert result["applied"] is False and error in result["message"], (args, result)
        assert client.messages[-1].type == lsp.MessageType.Error
    shown = len(client.messages)
    for args, error in [  # malformed: a JSON-RPC error names the problem, and nothing pops up
        ([{**good, "instruction": ""}], "the instruction is empty"),
        ([good, good], "one argument"),
        ([], "one argument"),
        ([{**good, "range": {"start": {"line": -1, "character": 0}, "end": good["range"]["end"]}}],
         "range.start.line must be a non-negative integer"),
    ]:
        with pytest.raises(JsonRpcException) as raised:
            await execute(client, args)
        assert raised.value.code == -32602 and error in raised.value.message, (args, raised.value)
    assert len(client.messages) == shown
    assert applied_to(client, uri) == []
    assert len(await code_actions(client, uri, rng(0, 0, 1, 0))) == len(PRESETS)


async def test_early_request_waits_for_the_model_and_cancels_stop_the_edit(tiny_engine):
    """A command sent before the model has loaded waits for it; cancels and shutdown apply nothing."""
    async with server("visual-studio-code", "--no-confirm", options={"maxTokens": 4000}) as client:
        encoding = client.encoding
        uri = open_document(client, EMOJI)
        result = await execute(client, [edit_args(uri, 1, line_range(EMOJI, 3, 5, encoding), "Add docstrings")])
        assert result["applied"] is True, result
        (edit,) = applied_to(client, uri)
        expected = tiny_engine.edit(EMOJI, 3, 5, "Add docstrings", name=NAME, max_tokens=4000)
        assert apply_text_edits(EMOJI, edit.document_changes[0].edits, encoding) == apply_program(
            expected.ops, EMOJI, 3, 5)
        assert not edit.change_annotations  # --no-confirm, although VS Code supports annotations
        (values,) = edit_progress(client, "Add docstrings")
        assert any("waiting for the model" in (v.message or "") for v in values)

        # Lines 2-5 open a <gen> that never closes: the edit runs until cancelled.
        args = [edit_args(uri, 1, line_range(EMOJI, 2, 5, encoding), "Fix the bug")]

        def decoding(instruction: str, count: int):
            runs = edit_progress(client, instruction)
            return len(runs) == count and any("tokens generated" in (v.message or "") for v in runs[-1])

        running = asyncio.ensure_future(execute(client, args))
        await wait_until(lambda: decoding("Fix the bug", 1))
        (token,) = [t for t, v in client.progress_reports.items() if v[0].title.endswith("Fix the bug")]
        started = time.monotonic()
        client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
        result = await running
        assert result == {"applied": False, "message": "cancelled; nothing applied"}
        assert time.monotonic() - started < 5

        running = asyncio.ensure_future(execute(client, args, msg_id="edit-to-cancel"))
        await wait_until(lambda: decoding("Fix the bug", 2))
        shown = len(client.messages)
        client.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="edit-to-cancel"))
        with pytest.raises(Exception, match="cancel"):
            await running
        # pygls answers $/cancelRequest at once; the model stops at its next forward. An edit sent right
        # away waits for that instead of being refused.
        running = asyncio.ensure_future(execute(client, args))
        await wait_until(lambda: any("cancelled" in m.message for m in client.messages[shown:]), timeout=5)
        assert len(applied_to(client, uri)) == 1  # only the first edit
        await wait_until(lambda: decoding("Fix the bug", 3))
        assert not any("another edit" in m.message for m in client.messages[shown:])
    # Leaving `server` shut it down during that edit (which pygls 2.1.1 alone fails) and exited.
    with pytest.raises(Exception, match="cancel"):
        await running
    assert client._server.returncode == 0 and len(applied_to(client, uri)) == 1


def make_scripted_client() -> LanguageClient:
    """An editor whose user may turn an edit down (``decline``: workspace/applyEdit answers applied: false
    with that reason) or type while it runs (``type_next``: the server's request for a progress bar, sent
    after it read the document and before it decodes, is answered after that didChange)."""
    from pygls.protocol import default_converter
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

    def create(ls: LanguageClient, params: lsp.WorkDoneProgressCreateParams):
        ls.progress_reports.setdefault(params.token, [])
        if ls.type_next is not None:
            uri, version, text = ls.type_next
            ls.type_next = None
            ls.text_document_did_change(lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[lsp.TextDocumentContentChangePartial(range=rng(0, 0, 0, 0), text=text)]))

    def apply_edit(ls: LanguageClient, params: lsp.ApplyWorkspaceEditParams):
        ls.applied.append(params)
        if ls.decline is not None:
            return lsp.ApplyWorkspaceEditResult(applied=False, failure_reason=ls.decline)
        return lsp.ApplyWorkspaceEditResult(applied=True)

    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, lsp.WINDOW_WORK_DONE_PROGRESS_CREATE: create,
                                   lsp.WORKSPACE_APPLY_EDIT: apply_edit})
    client.applied, client.decline, client.type_next = [], None, None
    return client


async def test_edits_that_must_not_apply(tiny_engine):
    """Declined by the editor, made on a document that moved during the edit, or sent while another edit
    runs: nothing is applied, and the user is told why.  (One server for the three: CI time.)"""
    async with server("visual-studio-code", "--no-confirm", options={"maxTokens": 4000},
                      client_factory=make_scripted_client) as client:
        encoding = client.encoding
        await wait_until(lambda: any(v[-1].kind == "end" for v in client.progress_reports.values()
                                     if v and "loading" in getattr(v[0], "title", "")), timeout=120)
        # the greedy program for lines 3-5 is finished and changes them: an edit is sent
        expected = tiny_engine.edit(EMOJI, 3, 5, "Simplify", name=NAME, max_tokens=4000)
        after = apply_program(expected.ops, EMOJI, 3, 5)
        assert expected.complete and after != EMOJI, expected.program

        # 1. The editor answers applied: false.
        uri = open_document(client, EMOJI)
        client.decline = "the user declined"
        result = await execute(client, [edit_args(uri, 1, line_range(EMOJI, 3, 5, encoding), "Simplify")])
        client.decline = None
        (edit,) = applied_to(client, uri)  # it was sent, with the program's edits
        assert apply_text_edits(EMOJI, edit.document_changes[0].edits, encoding) == after
        assert result["applied"] is False, result
        assert "did not apply" in result["message"] and "the user declined" in result["message"]
        assert any("did not apply" in m.message and m.type == lsp.MessageType.Info for m in client.messages)

        # 2. The user types while the edit runs.
        uri = open_document(client, EMOJI)
        client.type_next = (uri, 2, "# typed meanwhile\n")
        result = await execute(client, [edit_args(uri, 1, line_range(EMOJI, 3, 5, encoding), "Simplify")])
        assert client.type_next is None  # the change went out during the edit
        assert result["applied"] is False and "changed during the edit" in result["message"], result
        assert result["stats"]["prompt_tokens"] == expected.stats.prompt_tokens  # the model ran on the old text
        assert applied_to(client, uri) == []

        # 3. A second edit while one runs.  Lines 2-5 open a <gen> that never closes: that edit runs until
        # cancelled.
        uri = open_document(client, EMOJI)
        running = asyncio.ensure_future(execute(client, [edit_args(uri, 1, line_range(EMOJI, 2, 5, encoding),
                                                                   "Fix the bug")]))
        await wait_until(lambda: any("tokens generated" in (v.message or "")
                                     for values in edit_progress(client, "Fix the bug") for v in values), timeout=60)
        second = await execute(client, [edit_args(uri, 1, line_range(EMOJI, 3, 5, encoding), "Simplify")])
        assert second == {"applied": False, "message": "another edit is running; try again when it has finished"}
        assert not running.done()
        (token,) = [t for t, v in client.progress_reports.items() if v and v[0].title.endswith("Fix the bug")]
        client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
        assert (await running)["applied"] is False
        third = await execute(client, [edit_args(uri, 1, line_range(EMOJI, 3, 5, encoding), "Simplify")])
        assert third["applied"] is True, third  # once it has stopped, the next edit runs
        assert third["stats"]["sampled_tokens"] == expected.stats.sampled_tokens

        # 4. The same in the background (a code action's command, answered at once): a second request is
        # refused at once, a cancel from the progress bar stops the edit, one message says so, nothing applied.
        uri = open_document(client, EMOJI)
        shown = len(client.messages)
        endless = {**edit_args(uri, 1, line_range(EMOJI, 2, 5, encoding), "Fix the bug"), "background": True}
        started = await asyncio.wait_for(execute(client, [endless]), 5)
        assert started["started"] is True, started
        await wait_until(lambda: len(edit_progress(client, "Fix the bug")) == 2 and any(
            "tokens generated" in (v.message or "") for v in edit_progress(client, "Fix the bug")[-1]), timeout=60)
        second = await execute(client, [{**endless, "instruction": "Simplify"}])
        assert second == {"applied": False, "message": "another edit is running; try again when it has finished"}
        (token,) = [t for t, v in client.progress_reports.items() if v and v[0].title.endswith("Fix the bug")
                    and v[-1].kind != "end"]
        client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
        await wait_until(lambda: any("cancelled" in m.message for m in client.messages[shown:]), timeout=10)
        await asyncio.sleep(0.3)
        assert [m.message for m in client.messages[shown:]] == [
            "cad-lsp: another edit is running; try again when it has finished", "cad-lsp: cancelled; nothing applied"]
        assert applied_to(client, uri) == []
        done = await execute(client, [{**endless, "range": range_json_of(line_range(EMOJI, 3, 5, encoding)),
                                       "instruction": "Simplify"}])
        assert done["started"] is True
        await wait_until(lambda: len(applied_to(client, uri)) == 1)
        await asyncio.sleep(0.3)
        assert len(applied_to(client, uri)) == 1  # applied once
        assert client.messages[-1].message.startswith("cad-lsp: edited lines 3-5")


async def test_an_edit_waits_for_a_loading_model_only_so_long(monkeypatch):
    """The wait for a model still loading ends with a clear error after MODEL_WAIT_S; a model that
    arrives within it is used."""
    import threading
    from types import SimpleNamespace

    from cad_lsp.lsp import model_work

    monkeypatch.setattr(model_work, "MODEL_WAIT_S", 0.3)
    reports = []
    progress = SimpleNamespace(report=reports.append)
    session = Session(Options(model="slow-model"), editor=None)
    model = session.model
    started = time.monotonic()
    with pytest.raises(RequestError, match="still loading after"):
        await asyncio.wait_for(model_work.wait_for_engine(session, threading.Event(), progress), 5)
    assert 0.3 <= time.monotonic() - started < 3
    assert reports == ["waiting for the model slow-model to load"]

    model.ready.clear()
    asyncio.get_running_loop().call_later(0.1, lambda: (setattr(model, "engine", "the engine"), model.ready.set()))
    assert await asyncio.wait_for(model_work.wait_for_engine(session, threading.Event(), progress), 5) == "the engine"

    # A load that fails while an edit waits has shown its reason already: the edit's failure is not shown
    # again (kind Log).  An edit asked for after the failure is the user's next try: it is told.
    model.ready.clear()
    model.engine = None
    asyncio.get_running_loop().call_later(0.1, lambda: (setattr(model, "load_error", "no such file"),
                                                        model.ready.set()))
    with pytest.raises(RequestError, match="could not be loaded: no such file") as waited:
        await asyncio.wait_for(model_work.wait_for_engine(session, threading.Event(), progress), 5)
    assert waited.value.kind == lsp.MessageType.Log
    with pytest.raises(RequestError, match="could not be loaded: no such file") as later:
        await asyncio.wait_for(model_work.wait_for_engine(session, threading.Event(), progress), 5)
    assert later.value.kind == lsp.MessageType.Error


async def test_a_model_that_will_be_slow_here_is_pointed_out_once_loaded(monkeypatch):
    """What the loaded model says about itself (a bf16 model on a CPU without bf16 products) is shown as a
    warning when the load ends; a model with nothing to say shows nothing."""
    from types import SimpleNamespace

    from cad_lsp.lsp import model_work

    for advice, expected in [("bf16 is slow here", [("bf16 is slow here", lsp.MessageType.Warning)]), (None, [])]:
        shown = []
        monkeypatch.setattr(model_work, "build_engine", lambda options, advice=advice: SimpleNamespace(advice=advice))
        editor = SimpleNamespace(capabilities=lsp.ClientCapabilities(), log=lambda *a: None,
                                 show=lambda message, kind: shown.append((message, kind)))
        session = Session(Options(model="random:tiny"), editor=editor)
        await asyncio.wait_for(model_work.load_engine(session), 10)
        assert session.model.engine.advice == advice and session.model.ready.is_set()
        assert shown == expected


def test_settings_under_our_name_are_honoured():
    """workspace/didChangeConfiguration: our section changes what can change at once; model settings are
    reported as taking effect on restart; anything else (eglot sends {} on connecting) is ignored quietly."""
    from types import SimpleNamespace

    from cad_lsp.lsp.server import did_change_configuration

    shown = []
    ls = SimpleNamespace(session=SimpleNamespace(options=Options(model="random:tiny", max_tokens=100)),
                         log=lambda *a: None, show=lambda message, kind: shown.append((message, kind)))
    for settings in [{}, None, {"pylsp": {"maxTokens": 5}}, "x"]:
        did_change_configuration(ls, lsp.DidChangeConfigurationParams(settings=settings))
    assert ls.session.options == Options(model="random:tiny", max_tokens=100) and shown == []
    did_change_configuration(ls, lsp.DidChangeConfigurationParams(settings={"cad-lsp": {
        "maxTokens": 7, "needsConfirmation": False, "keepAiComments": True, "model": "smollm2", "colour": 1}}))
    assert ls.session.options == Options(model="random:tiny", max_tokens=7, needs_confirmation=False, keep_ai_comments=True)
    assert [m for m, _ in shown] == ["unknown setting 'colour' ignored",
                                     "a change of model takes effect when the server restarts"]
    did_change_configuration(ls, lsp.DidChangeConfigurationParams(settings={"cadLsp": {"maxTokens": 9}}))
    assert ls.session.options.max_tokens == 9
    did_change_configuration(ls, lsp.DidChangeConfigurationParams(settings={"cadLsp": {"speculation": False}}))
    assert ls.session.options.speculation is False  # read by each edit: at once
    options, problems = merge_options(Options(), {"contextLines": 256, "speculation": "no"})
    assert options.context_lines == 256 and options.speculation is True and len(problems) == 1


async def test_missing_model_is_reported_and_the_server_answers():
    async with server("neovim", options={"model": "/nonexistent/cad-lsp-model"}) as client:
        await wait_until(lambda: any(m.type == lsp.MessageType.Error for m in client.messages))
        (error,) = [m for m in client.messages if m.type == lsp.MessageType.Error]
        assert "/nonexistent/cad-lsp-model" in error.message and "does not exist" in error.message
        uri = open_document(client, EMOJI)
        result = await execute(client, [edit_args(uri, 1, rng(0, 0, 1, 0), "Simplify")])
        assert result["applied"] is False and "could not be loaded" in result["message"]
        assert "does not exist" in result["message"]
        assert len(await code_actions(client, uri, rng(0, 0, 1, 0))) == len(PRESETS)
