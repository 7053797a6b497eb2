"""``cad.applyAnswer``: a whole chat answer through the language server, as VS Code and as Neovim.

One WorkspaceEdit holds a versioned edit per open document (merged into the editor's text, not the disk's), a
CreateFile and its text per new file, and an unversioned edit per file on disk that is not open; the editor's
texts after it are checked against the plan run in process (``program.answer_plan``).  A refused block or a
stale version applies nothing; ``partial`` applies what merged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from cad_lsp.lsp.answer_flow import (
    ANSWER_COMMAND,
    AnswerRequest,
    answer_root,
    answer_workspace_edit,
    creates_files,
    minimal_edits,
    parse_answer_arguments,
)
from cad_lsp.lsp.documents import Snapshot
from cad_lsp.lsp.requests import RequestError
from cad_lsp.program.answer_plan import plan_answer
from cad_lsp.program.edits import apply_text_edits
from tests.test_server import SERVER, make_client

APP = "import os\n\n\ndef load(path):\n    with open(path) as fh:\n        return fh.read()\n"
MAIN = "from app import load\n\n\ndef main():\n    print(load('x'))\n"
on_module_loop = pytest.mark.asyncio(loop_scope="module")


def answer(case: str) -> str:
    return f"""Read files as UTF-8, print a default, and add a helper.

**{case}/app.py**
```python
def load(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()
```

```python {case}/main.py
# ... existing code ...
def main():
    print(load('x') or "(empty)")
```

```python
# File: {case}/util/paths.py
from pathlib import Path
```

```bash
python -m pytest
```
"""


# ---------------------------------------------------------------------------
# The argument, the root, the edit


def test_the_argument():
    assert parse_answer_arguments([{"text": "x"}]) == AnswerRequest("x")
    assert parse_answer_arguments([{"text": "x", "uri": "file:///a.py", "version": 3, "partial": True}]) == \
        AnswerRequest("x", "file:///a.py", 3, partial=True)
    for value, error in [("x", "takes one object"), ({"text": 1}, "text must be a string"),
                         ({"text": " \n"}, "the answer is empty"), ({"text": "x", "uri": 5}, "uri must be a string"),
                         ({"text": "x", "version": "1"}, "version must be"),
                         ({"text": "x", "partial": "yes"}, "partial must be true or false")]:
        with pytest.raises(RequestError, match=error):
            parse_answer_arguments([value])
    with pytest.raises(RequestError, match="takes one argument"):
        parse_answer_arguments([])


def test_the_root_is_the_folder_holding_the_active_document():
    request = AnswerRequest("x", "file:///w/two/src/a.py")
    assert answer_root(request, ["file:///w/one", "file:///w/two"], None) == Path("/w/two")
    assert answer_root(AnswerRequest("x"), ["file:///w/one", "file:///w/two"], None) == Path("/w/one")
    assert answer_root(AnswerRequest("x"), [], "file:///w/root") == Path("/w/root")
    assert answer_root(request, [], None) == Path("/w/two/src")
    with pytest.raises(RequestError, match="no workspace folder"):
        answer_root(AnswerRequest("x", "untitled:1"), [], None)


def test_minimal_edits_leave_copied_lines_alone():
    after = APP.replace("open(path)", "open(path, encoding='utf-8')")
    edits = minimal_edits(APP, after, "utf-16")
    assert apply_text_edits(APP, edits) == after and len(edits) == 1 and edits[0].range.start.line == 4
    assert apply_text_edits("", minimal_edits("", "x = 1\n", "utf-16")) == "x = 1\n"


def test_the_edit_holds_a_versioned_an_unversioned_and_a_created_file(tmp_path):
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "app.py").write_text(APP)
    (tmp_path / "case" / "main.py").write_text(MAIN)
    open_main = Snapshot((tmp_path / "case" / "main.py").as_uri(), 7, MAIN)
    documents = {tmp_path / "case" / "main.py": open_main}
    plan = plan_answer(answer("case"), tmp_path)
    edit = answer_workspace_edit(plan, documents, "utf-16", annotate=False, confirm=True)
    kinds = [(type(c).__name__, getattr(getattr(c, "text_document", None), "version", None)) for c in
             edit.document_changes]
    assert kinds == [("TextDocumentEdit", None), ("TextDocumentEdit", 7), ("CreateFile", None),
                     ("TextDocumentEdit", None)]
    assert edit.document_changes[2].uri == (tmp_path / "case" / "util" / "paths.py").as_uri()
    assert edit.document_changes[2].options.overwrite is False and edit.change_annotations is None
    annotated = answer_workspace_edit(plan, documents, "utf-16", annotate=True, confirm=True)
    assert all(e.annotation_id == "cad-lsp.answer" for c in annotated.document_changes[::3] for e in c.edits)
    assert annotated.change_annotations["cad-lsp.answer"].needs_confirmation is True


def test_the_editor_must_create_files():
    assert creates_files(client_capabilities("visual-studio-code")) and creates_files(client_capabilities("neovim"))
    assert not creates_files(lsp.ClientCapabilities())


# ---------------------------------------------------------------------------
# End to end

ROOT: Path | None = None
_cases = 0


@pytest_lsp.fixture(scope="module", params=["visual-studio-code", "neovim"],
                    config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(request, lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities(request.param), root_uri=root.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=root.as_uri(), name="workspace")]))
    lsp_client.root = root
    lsp_client.encoding = getattr(result.capabilities.position_encoding, "value",
                                  result.capabilities.position_encoding) or "utf-16"
    lsp_client.commands = result.capabilities.execute_command_provider.commands
    yield
    await lsp_client.shutdown_session()


def new_case(client: LanguageClient) -> tuple[str, Path]:
    global _cases
    _cases += 1
    name = f"case{_cases}"
    folder = client.root / name
    folder.mkdir()
    (folder / "app.py").write_text(APP)
    (folder / "main.py").write_text(MAIN)
    return name, folder


def open_file(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


async def apply_answer(client: LanguageClient, **argument) -> dict:
    params = lsp.ExecuteCommandParams(command=ANSWER_COMMAND, arguments=[argument])
    return await client.workspace_execute_command_async(params)


def changes_by_uri(edit: lsp.WorkspaceEdit) -> dict:
    return {c.text_document.uri: c for c in edit.document_changes if isinstance(c, lsp.TextDocumentEdit)}


@on_module_loop
async def test_one_edit_changes_open_and_closed_files_and_creates_one(client: LanguageClient):
    assert ANSWER_COMMAND in client.commands
    case, folder = new_case(client)
    edited = MAIN + "\n\nmain()\n"  # unsaved in the editor: the answer merges into this, not the disk's text
    main_uri = open_file(client, folder / "main.py", edited, version=4)
    before = len(client.applied)
    result = await apply_answer(client, text=answer(case), uri=main_uri)
    assert result["applied"] is True, result
    assert result["message"] == "applied a chat answer: 2 files changed, 1 created"
    assert [(f["path"], f["status"]) for f in result["files"]] == [
        (f"{case}/app.py", "changed"), (f"{case}/main.py", "changed"), (f"{case}/util/paths.py", "created")]
    (params,) = client.applied[before:]
    edit = params.edit
    creates = [c for c in edit.document_changes if isinstance(c, lsp.CreateFile)]
    assert [c.uri for c in creates] == [(folder / "util" / "paths.py").as_uri()]
    changes = changes_by_uri(edit)
    assert changes[main_uri].text_document.version == 4
    assert changes[(folder / "app.py").as_uri()].text_document.version is None
    expected = {f.target.as_uri(): f.after for f in plan_answer(answer(case), client.root,
                                                                read=lambda p: (edited, None) if p.name == "main.py"
                                                                and p.parent == folder else _disk(p)).files}
    texts = {main_uri: edited, (folder / "app.py").as_uri(): APP, (folder / "util" / "paths.py").as_uri(): ""}
    for uri, change in changes.items():
        assert apply_text_edits(texts[uri], change.edits, client.encoding) == expected[uri]
    assert expected[main_uri].endswith("\n\nmain()\n") and 'or "(empty)"' in expected[main_uri]
    assert (folder / "app.py").read_text() == APP  # the editor writes the files, not the server


def _disk(path: Path):
    from cad_lsp.program.answer_plan import read_text

    return read_text(path)


@on_module_loop
async def test_a_refused_block_applies_nothing_unless_partial(client: LanguageClient):
    case, folder = new_case(client)
    text = answer(case) + f"\n```python {case}/new.py\nimport os\n# ... existing code ...\n```\n"
    before = len(client.applied)
    result = await apply_answer(client, text=text)
    assert result["applied"] is False and len(client.applied) == before
    assert result["message"].startswith(f"nothing applied: {case}/new.py: the block at line 25 of the answer "
                                        "elides lines") and "partial applies" in result["message"]
    assert client.messages[-1].type == lsp.MessageType.Warning
    assert {f["path"]: f["status"] for f in result["files"]}[f"{case}/new.py"] == "refused"
    result = await apply_answer(client, text=text, partial=True)
    assert result["applied"] is True and "not applied: " in result["message"] and len(client.applied) == before + 1
    uris = {getattr(c, "uri", None) or c.text_document.uri for c in client.applied[-1].edit.document_changes}
    assert (folder / "new.py").as_uri() not in uris and (folder / "app.py").as_uri() in uris


@on_module_loop
async def test_blocks_naming_no_file_go_to_the_active_document(client: LanguageClient):
    _case, folder = new_case(client)
    uri = open_file(client, folder / "main.py", MAIN)
    text = "Print another file:\n\n```python\ndef main():\n    print(load('y'))\n```\n"
    unplaced = await apply_answer(client, text=text)
    assert unplaced["applied"] is False and unplaced["unplaced"][0]["line"] == 3
    assert "names no file" in unplaced["message"]
    result = await apply_answer(client, text=text, uri=uri, version=1)
    change = changes_by_uri(client.applied[-1].edit)[uri]
    assert result["applied"] is True and apply_text_edits(MAIN, change.edits, client.encoding) == \
        MAIN.replace("'x'", "'y'")


@on_module_loop
async def test_a_stale_version_and_an_answer_without_files_apply_nothing(client: LanguageClient):
    case, folder = new_case(client)
    uri = open_file(client, folder / "main.py", MAIN, version=2)
    before = len(client.applied)
    stale = await apply_answer(client, text=answer(case), uri=uri, version=1)
    assert stale == {"applied": False, "message": "the request is stale: it was made on version 1, the document "
                                                  "is at version 2; nothing applied"}
    shell = await apply_answer(client, text="Run:\n\n```sh\nmake test\n```\n")
    assert shell["applied"] is False and "no code block that changes a file" in shell["message"]
    outside = await apply_answer(client, text="```python ../elsewhere.py\nx = 1\n```\n")
    assert outside["applied"] is False and "leads outside" in outside["message"]
    assert len(client.applied) == before
