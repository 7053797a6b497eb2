"""``cad.applyUpdate``: a chat model's update snippet merged through the language server, as VS Code and as Neovim.

The server runs ``random:tiny``, whose greedy programs are deterministic: each
apply is checked against the same ``Engine.apply`` run in process
(``tiny_engine``), so the editor must end up with exactly the resolver's text of
the region the engine found.  The command takes the edit's road (claim,
progress and cancel, minimal TextEdits, one versioned WorkspaceEdit), so these
tests check that road's ends for an update, not every turn of it again.
"""

from __future__ import annotations

import asyncio
import re
import sys
from dataclasses import replace

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from cad_lsp.engine import EngineError
from cad_lsp.lsp.documents import Documents, Snapshot, document_language
from cad_lsp.lsp.edit_flow import UNSEEN_ANNOTATION
from cad_lsp.lsp.requests import (
    APPLY_COMMAND,
    EDIT_COMMAND,
    MAX_UPDATE_CHARS,
    ApplyRequest,
    RequestError,
    parse_apply_arguments,
    parse_apply_request,
)
from cad_lsp.program import apply_program
from cad_lsp.program.edits import apply_text_edits
from cad_lsp.program.update import merge_update
from tests.test_server import (
    EMOJI,
    NAME,
    SERVER,
    applied_to,
    edit_progress,
    initialize,
    make_client,
    open_document,
    rng,
    wait_until,
)
from tests.unseen import BREAKS, patch_merges

MAX_TOKENS = 40
# The last line of EMOJI changes: the region is lines 4-5, the last one without a terminator and after an emoji.
CHANGE_LAST_LINE = '# ... existing code ...\ny = "😀 one"\ny = "😀 two"  # changed\n# ... existing code ...\n'
ABS_IN_F = "def f(x):\n    x = abs(x)\n    return x + 1\n# ... existing code ...\n"
LONG_IN_F = ABS_IN_F.replace("abs(x)", "abs(x)  # a comment long enough to run past the program's token limit")
NEW_SIGNATURE = "def f(x, scale=1):\n    return x + 1\n# ... existing code ...\n"
UNCHANGED = 'def f(x):\n    return x + 1\n\ny = "😀 one"\n'  # the file's lines: the snippet changes nothing
UNPLACEABLE = "print('nothing of this file')\n"
TITLE = "apply an update"  # the progress bar's title and the edit's label, after "cad-lsp: "
on_module_loop = pytest.mark.asyncio(loop_scope="module")


# ---------------------------------------------------------------------------
# The argument

GOOD = {"uri": "file:///a.py", "version": 1, "update": "x = 1\n"}


def test_the_argument_is_kept_as_sent():
    """The update is not trimmed (its blank lines and indentation place it); an empty instruction is none."""
    update = "\n    x = 1\n# ... existing code ...\n\n"
    assert parse_apply_request({"uri": "file:///a.py", "version": 3, "update": update, "instruction": "  "}) == \
        ApplyRequest("file:///a.py", 3, update, None)
    assert parse_apply_arguments([{"uri": "u", "version": 1, "update": "x", "instruction": " go ",
                                   "background": True}]) == ApplyRequest("u", 1, "x", "go", background=True)
    assert parse_apply_request({**GOOD, "force": True}) == ApplyRequest("file:///a.py", 1, "x = 1\n", force=True)
    assert ApplyRequest("u", 1, "x").title == TITLE and ApplyRequest("u", 1, "x", "go").title == f"{TITLE}: go"
    assert parse_apply_request({**GOOD, "update": "x" * MAX_UPDATE_CHARS}).update  # the limit itself passes


@pytest.mark.parametrize("value, error", [
    ("x = 1", "takes one object {uri, version, update, instruction?, force?}"),
    ({**GOOD, "uri": 7}, "uri must be a string"),
    ({**GOOD, "version": "1"}, "version must be the document's integer version"),
    ({**GOOD, "update": None}, "update must be a string"),
    ({**GOOD, "update": ["x = 1\n"]}, "update must be a string"),
    ({**GOOD, "update": " \n\t"}, "the update is empty"),
    ({**GOOD, "update": "x" * (MAX_UPDATE_CHARS + 1)}, f"at most {MAX_UPDATE_CHARS:,} are accepted"),
    ({**GOOD, "instruction": 5}, "instruction must be a string"),
    ({**GOOD, "background": "yes"}, "background must be true or false"),
    ({**GOOD, "force": 1}, "force must be true or false"),
])
def test_parse_apply_request_refuses(value, error):
    with pytest.raises(RequestError, match=error.replace("?", r"\?")):
        parse_apply_request(value)


def test_the_merge_reads_the_documents_language():
    """The editor's language id, else (none, or plain text) the file's name; None when there is neither."""
    assert document_language(Snapshot("file:///w/app.tsx", 1, "", "typescriptreact")) == "typescriptreact"
    assert document_language(Snapshot("file:///w/app.tsx", 1, "", "plaintext")) == "app.tsx"
    assert document_language(Snapshot("file:///w/my%20app.py", 1, "")) == "my app.py"
    assert document_language(Snapshot("file:///", 1, "")) is None
    documents = Documents()
    documents.open("file:///w/a.py", 1, "x = 1\n", "python")
    documents.change("file:///w/a.py", 2, [lsp.TextDocumentContentChangeWholeDocument(text="x = 2\n")], "utf-16")
    assert documents.get("file:///w/a.py") == Snapshot("file:///w/a.py", 2, "x = 2\n", "python")  # kept


def test_the_request_merges_with_the_language_and_refuses_a_broken_file_unless_forced(monkeypatch):
    """Before the model is claimed, and again on the engine, with the document's language and ``force``."""
    calls = patch_merges(monkeypatch.setattr, breaks=True)
    with pytest.raises(RequestError, match=re.escape(f"{BREAKS}; nothing applied")):
        ApplyRequest("u", 1, ABS_IN_F).lines(EMOJI, "utf-16", "python")
    assert ApplyRequest("u", 1, ABS_IN_F, force=True).lines(EMOJI, "utf-16", "python") is None
    assert calls == [("python", False), ("python", True)]

    class Recording:
        def apply(self, *args, **kwargs):
            return args, kwargs

    args, kwargs = ApplyRequest("u", 1, ABS_IN_F, "go", force=True).run(Recording(), EMOJI, "python", key="k")
    assert args == (EMOJI, ABS_IN_F, "go") and kwargs == {"language": "python", "force": True, "key": "k"}


# ---------------------------------------------------------------------------
# End to end


@pytest_lsp.fixture(scope="module", params=["visual-studio-code", "neovim"],
                    config=ClientServerConfig(server_command=[*SERVER, "--max-tokens", str(MAX_TOKENS)],
                                              client_factory=make_client))
async def client(request, lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities(request.param), root_uri="file:///work"))
    kind = result.capabilities.position_encoding
    lsp_client.encoding = getattr(kind, "value", kind) or "utf-16"
    lsp_client.preset = request.param
    lsp_client.commands = result.capabilities.execute_command_provider.commands
    yield
    await lsp_client.shutdown_session()


async def apply_update(client: LanguageClient, arguments: list, msg_id: str | None = None):
    params = lsp.ExecuteCommandParams(command=APPLY_COMMAND, arguments=arguments)
    return await client.protocol.send_request_async(lsp.WORKSPACE_EXECUTE_COMMAND, params, msg_id=msg_id)


def update_args(uri: str, version: int, update: str, **more) -> dict:
    return {"uri": uri, "version": version, "update": update, **more}


# (document, update, instruction, what the random model's program does with MAX_TOKENS)
CASES = [
    (EMOJI, CHANGE_LAST_LINE, "keep the emoji", "applied"),  # the changed line 5 joins the old one: its call
    (EMOJI, LONG_IN_F, None, "incomplete"),  # the new line's <gen> runs into maxTokens
    (EMOJI, UNCHANGED, None, "no change"),
]


@on_module_loop
@pytest.mark.parametrize("document, update, instruction, expected_kind", CASES)
async def test_apply_matches_the_engine(client: LanguageClient, tiny_engine, document, update, instruction,
                                        expected_kind):
    """The command, in the background and waited for, against the same apply run in process."""
    assert APPLY_COMMAND in client.commands and EDIT_COMMAND in client.commands  # executeCommandProvider
    encoding = client.encoding
    uri = open_document(client, document)
    title = f"{TITLE}: {instruction}" if instruction else TITLE
    runs_before = len(edit_progress(client, title))
    args = update_args(uri, 1, update, instruction=instruction)

    shown = len(client.messages)
    started = await apply_update(client, [{**args, "background": True}])  # answered at once, as a code action's
    assert started == {"started": True, "message": f"editing {NAME}: the edit arrives as workspace/applyEdit"}
    await wait_until(lambda: len(client.messages) > shown)
    await asyncio.sleep(0.2)  # a second message would have come by now
    (outcome,) = client.messages[shown:]
    from_background = applied_to(client, uri)
    result = await apply_update(client, [args])  # the client that waits gets the outcome as the answer

    expected = tiny_engine.apply(document, update, instruction, name=NAME, max_tokens=MAX_TOKENS)
    after = apply_program(expected.ops, document, expected.first_line, expected.last_line)
    kind = "incomplete" if not expected.complete else "no change" if after == document else "applied"
    assert kind == expected_kind, f"the random model's program changed ({expected.program!r}): pick another case"
    received = applied_to(client, uri)
    assert result["stats"]["prompt_tokens"] == expected.stats.prompt_tokens
    assert result["removedUnseen"] == []  # always there for an update: nothing of the file removed unseen
    if kind == "applied":
        lines = f"lines {expected.first_line}-{expected.last_line}"
        assert result["applied"] is True and result["message"].startswith(f"edited {lines}: "), result
        assert outcome.type == lsp.MessageType.Info and outcome.message == f"cad-lsp: {result['message']}"
        assert len(from_background) == 1 and received == from_background * 2  # the same edit from both paths
        edit = received[0]
        (change,) = edit.document_changes
        assert change.text_document.version == 1
        assert apply_text_edits(document, change.edits, encoding) == after
        # only the region's text changes: no edit reaches above the region
        assert all(e.range.start.line >= expected.first_line - 1 for e in change.edits)
        if client.preset == "visual-studio-code":  # changeAnnotationSupport, confirmation on: as an edit
            (annotation_id,) = {e.annotation_id for e in change.edits}
            annotation = edit.change_annotations[annotation_id]
            assert annotation.needs_confirmation is True and annotation.label == f"cad-lsp: {title}"
            assert annotation.description == f"{NAME} {lines}"
        else:
            assert {getattr(e, "annotation_id", None) for e in change.edits} == {None}
    else:
        assert result["applied"] is False and received == []
        assert ("not finished" if kind == "incomplete" else "no change") in result["message"], result
        assert outcome.message == client.messages[-1].message == f"cad-lsp: {result['message']}"

    await wait_until(lambda: len(edit_progress(client, title)) == runs_before + 2
                     and edit_progress(client, title)[-1][-1].kind == "end", timeout=10)
    for values in edit_progress(client, title)[-2:]:
        assert values[0].kind == "begin" and values[0].cancellable and values[0].message == NAME
        assert [v.kind for v in values].count("end") == 1


@on_module_loop
async def test_stale_unopened_and_unplaceable_updates_apply_nothing(client: LanguageClient, tiny_engine):
    uri = open_document(client, EMOJI)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[lsp.TextDocumentContentChangePartial(range=rng(0, 0, 0, 0), text="# new\n")]))
    stale = await apply_update(client, [update_args(uri, 1, CHANGE_LAST_LINE)])
    assert stale == {"applied": False, "message": "the request is stale: it was made on version 1, the document is "
                                                  "at version 2; nothing applied"}
    assert client.messages[-1].type == lsp.MessageType.Warning and "stale" in client.messages[-1].message

    unopened = await apply_update(client, [update_args("file:///work/nowhere.py", 1, CHANGE_LAST_LINE)])
    assert unopened["applied"] is False and "is not open in the editor" in unopened["message"]

    for update in (UNPLACEABLE, "# ... existing code ...\n\n# ... existing code ...\n"):
        with pytest.raises(EngineError) as refused:  # the engine's own words for it
            tiny_engine.apply(EMOJI, update, name=NAME)
        result = await apply_update(client, [update_args(uri, 2, update)])
        assert result == {"applied": False, "message": f"{refused.value}; nothing applied"}
        assert client.messages[-1].type == lsp.MessageType.Error
        assert client.messages[-1].message == f"cad-lsp: {refused.value}; nothing applied"
    assert applied_to(client, uri) == []


@on_module_loop
async def test_malformed_arguments_are_refused_before_anything_runs(client: LanguageClient):
    uri = open_document(client, EMOJI)
    shown = len(client.messages)
    for arguments, error in [
        ([update_args(uri, 1, 42)], "update must be a string"),
        ([update_args(uri, 1, "")], "the update is empty"),
        ([update_args(uri, 1, "x\n" * MAX_UPDATE_CHARS)], "characters long; at most"),
        ([update_args(uri, 1, "x = 1\n")] * 2, "takes one argument"),
        ([{"uri": uri, "version": 1}], "update must be a string"),
    ]:
        with pytest.raises(JsonRpcException) as raised:
            await apply_update(client, arguments)
        assert raised.value.code == -32602 and raised.value.message.startswith(f"workspace/executeCommand: "
                                                                               f"{APPLY_COMMAND}: ")
        assert error in raised.value.message, raised.value.message
    assert len(client.messages) == shown  # nothing pops up
    assert applied_to(client, uri) == []


@on_module_loop
async def test_an_apply_answers_without_reading_the_document(client: LanguageClient):
    """The grammar leaves an apply's program no call for the model: on a long document not yet read into the
    cache the merge lands at once, and no progress ever says the document is being read (there is nothing to
    cancel; cancelling a running model is tested on edits)."""
    long_lines = "".join(f"x{i} = '{' '.join(str(i * k) for k in range(60))}'\n" for i in range(400))
    uri = open_document(client, EMOJI + "\n" + long_lines, "notes.txt", "plaintext")
    try:
        args = [update_args(uri, 1, NEW_SIGNATURE, instruction="at once")]
        answer = await asyncio.wait_for(apply_update(client, args), 10)
        assert answer["applied"] is True, answer
        runs = edit_progress(client, f"{TITLE}: at once")
        assert runs and not any("reading the document" in (v.message or "") for run in runs for v in run)
        (edit,) = applied_to(client, uri)
        assert [e.new_text for e in edit.document_changes[0].edits] == [", scale=1"]  # only what changed
    finally:
        client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))


# ---------------------------------------------------------------------------
# Lines the merge removes that the update did not show


@pytest.mark.parametrize("preset", ["visual-studio-code", "neovim"])
async def test_lines_removed_unseen_are_said_in_the_review_and_the_answer(preset):
    """A server whose merges report file line 4 removed unseen, its applies landing as the merge (``tests.unseen``).
    The answer lists it and says it; the edit's annotation says it, under its own id, even where nothing asks
    to confirm (VS Code's extension reviews the edit itself and shows it there); a client without annotations
    gets it in the answer; a background apply's message is a warning."""
    server = [sys.executable, "-m", "tests.unseen", "4-4", "--scripted", "--model", "random:tiny"]
    client = await ClientServerConfig(server_command=server, client_factory=make_client).start()
    try:
        encoding = await initialize(client, preset)
        merge = replace(merge_update(EMOJI, ABS_IN_F, "python"), unseen=((4, 4),))
        note = merge.unseen_note()
        for confirm in (True, False):
            settings = {"cad-lsp": {"needsConfirmation": confirm}}
            client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings=settings))
            uri = open_document(client, EMOJI)
            result = await apply_update(client, [update_args(uri, 1, ABS_IN_F)])
            assert result["applied"] is True and result["removedUnseen"] == [[4, 4]], result
            assert result["message"].startswith(f"edited lines {merge.first}-{merge.last}: ")
            assert result["message"].endswith(f"; {note}")
            (edit,) = applied_to(client, uri)
            (change,) = edit.document_changes
            assert apply_text_edits(EMOJI, change.edits, encoding) == merge.merged
            if preset == "visual-studio-code":
                assert {e.annotation_id for e in change.edits} == {UNSEEN_ANNOTATION}
                annotation = edit.change_annotations[UNSEEN_ANNOTATION]
                assert annotation.label == f"cad-lsp: {TITLE}" and annotation.needs_confirmation is confirm
                assert annotation.description == f"{NAME} lines {merge.first}-{merge.last}; {note}"
            else:  # no changeAnnotationSupport
                assert {getattr(e, "annotation_id", None) for e in change.edits} == {None}

        uri = open_document(client, EMOJI)
        await apply_update(client, [update_args(uri, 1, ABS_IN_F, background=True)])
        await wait_until(lambda: any(note in m.message for m in client.messages))
        (shown,) = [m for m in client.messages if note in m.message]
        assert shown.type == lsp.MessageType.Warning and shown.message.startswith("cad-lsp: edited lines ")
    finally:
        await client.shutdown_session()
        await client.stop()
