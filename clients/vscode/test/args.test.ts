import { strict as assert } from "node:assert";
import { test } from "node:test";
import {
  ANSWER_COMMAND,
  ANSWER_UNSEEN_ANNOTATION,
  MAX_UPDATE_CHARS,
  UNSEEN_ANNOTATION,
  answerFiles,
  answerQuestion,
  buildAnswerArgs,
  buildApplyArgs,
  buildEditArgs,
  buildInitializationOptions,
  describeResult,
  editRange,
  reviewQuestion,
  serverCommand,
  spliceEdits,
  validateInstruction,
  validateAnswer,
  validateUpdate,
} from "../src/args";

const pos = (line: number, character: number) => ({ line, character });

test("initializationOptions keep set values in camelCase", () => {
  assert.deepEqual(
    buildInitializationOptions({
      model: "Qwen/Qwen2.5-Coder-0.5B-Instruct",
      device: "cuda",
      dtype: "bfloat16",
      backend: "vllm",
      vllmUrl: " http://gpu-host:8000 ",
      maxTokens: 256,
      maxDocuments: 2,
      contextLines: 1024,
      speculation: false,
      review: true,
    }),
    {
      model: "Qwen/Qwen2.5-Coder-0.5B-Instruct",
      device: "cuda",
      dtype: "bfloat16",
      backend: "vllm",
      vllmUrl: "http://gpu-host:8000",
      maxTokens: 256,
      maxDocuments: 2,
      contextLines: 1024,
      speculation: false,
      needsConfirmation: false,
    },
  );
});

test("initializationOptions leave out unset and empty values", () => {
  assert.deepEqual(
    buildInitializationOptions({ model: "  ", device: "", maxTokens: null, review: true }),
    { needsConfirmation: false },
  );
  const none = { needsConfirmation: false };
  assert.deepEqual(buildInitializationOptions({}), none);
  assert.deepEqual(buildInitializationOptions({ maxTokens: 0 }), none);
  assert.deepEqual(buildInitializationOptions({ maxTokens: 1.5 }), none);
  assert.deepEqual(buildInitializationOptions({ backend: "", vllmUrl: " ", maxDocuments: -1 }), none);
  assert.deepEqual(buildInitializationOptions({ contextLines: null, speculation: undefined }), none);
});

test("server command defaults to `cad-lsp serve`", () => {
  assert.deepEqual(serverCommand({}), { command: "cad-lsp", args: ["serve"] });
  assert.deepEqual(serverCommand({ serverCommand: "", serverArgs: undefined }), {
    command: "cad-lsp",
    args: ["serve"],
  });
  assert.deepEqual(serverCommand({ serverCommand: "python", serverArgs: ["-m", "cad_lsp", "serve"] }), {
    command: "python",
    args: ["-m", "cad_lsp", "serve"],
  });
});

test("instruction must be non-empty after trimming", () => {
  assert.equal(validateInstruction("add type hints"), undefined);
  assert.equal(typeof validateInstruction(""), "string");
  assert.equal(typeof validateInstruction(" \t\n"), "string");
});

test("a non-empty selection is edited as is", () => {
  const selection = { start: pos(2, 4), end: pos(5, 1) };
  assert.deepEqual(editRange(selection, 10, 80), selection);
});

test("an empty selection edits the whole line with its line break", () => {
  const cursor = { start: pos(3, 7), end: pos(3, 7) };
  assert.deepEqual(editRange(cursor, 10, 20), { start: pos(3, 0), end: pos(4, 0) });
});

test("an empty selection on the last line ends at the line's end", () => {
  const cursor = { start: pos(9, 0), end: pos(9, 0) };
  assert.deepEqual(editRange(cursor, 10, 12), { start: pos(9, 0), end: pos(9, 12) });
});

test("the command argument has the server's shape", () => {
  const range = { start: pos(0, 0), end: pos(1, 0) };
  assert.deepEqual(buildEditArgs("file:///tmp/a.py", 7, range, "  rename x to y \n"), {
    uri: "file:///tmp/a.py",
    version: 7,
    range,
    instruction: "rename x to y",
  });
});

test("the reply becomes a message", () => {
  assert.deepEqual(describeResult({ applied: true, message: "Edited 3 lines." }), {
    ok: true,
    message: "Edited 3 lines.",
    shownByServer: false,
    removedUnseen: false,
  });
  // The server showed its reason with window/showMessage: not again.
  assert.deepEqual(describeResult({ applied: false, message: "Document changed." }), {
    ok: false,
    message: "Document changed.",
    shownByServer: true,
    removedUnseen: false,
  });
  const quiet = { shownByServer: false, removedUnseen: false };
  assert.deepEqual(describeResult({ applied: true }), { ok: true, message: "Edit applied.", ...quiet });
  assert.deepEqual(describeResult({ applied: false }), { ok: false, message: "Edit not applied.", ...quiet });
  assert.equal(describeResult(null).ok, false);
  assert.equal(describeResult("nope").shownByServer, false);
  // An update whose merge removed file lines the update did not show.
  assert.equal(describeResult({ applied: true, message: "m", removedUnseen: [[5, 6]] }).removedUnseen, true);
  assert.equal(describeResult({ applied: true, message: "m", removedUnseen: [] }).removedUnseen, false);
});

test("the review warns when the edit removes lines the update did not show", () => {
  assert.deepEqual(reviewQuestion("cad-lsp: apply an update", "a.py"), {
    text: "cad-lsp: apply an update (a.py): accept the edit shown in the diff?",
    warn: false,
  });
  const plain = { "cad-lsp.edit": { description: "a.py lines 3-9" } };
  assert.equal(reviewQuestion("cad-lsp: apply an update", "a.py", plain).warn, false);
  const note = "the merge removes 2 lines the update did not show (file lines 5-6): check them before accepting";
  const unseen = { [UNSEEN_ANNOTATION]: { description: `a.py lines 3-9; ${note}` } };
  assert.deepEqual(reviewQuestion("cad-lsp: apply an update", "a.py", unseen), {
    text: `cad-lsp: apply an update: a.py lines 3-9; ${note}. Accept the edit shown in the diff?`,
    warn: true,
  });
});

test("initializationOptions never ask for the refactor preview, whatever cadLsp.review says", () => {
  assert.equal(buildInitializationOptions({ review: true }).needsConfirmation, false);
  assert.equal(buildInitializationOptions({ review: false }).needsConfirmation, false);
});

test("spliceEdits applies edits against the original text, in any order", () => {
  const text = "a\r\nb\r\nc 😀\r\n";
  // Insert after line 1, replace "c" (offsets count UTF-16 units: the emoji is 2).
  const edits = [
    { start: 6, end: 7, newText: "C" },
    { start: 3, end: 3, newText: "new\r\n" },
  ];
  assert.equal(spliceEdits(text, edits), "a\r\nnew\r\nb\r\nC 😀\r\n");
  assert.equal(spliceEdits(text, []), text);
  assert.equal(spliceEdits("abc", [{ start: 3, end: 3, newText: "d" }]), "abcd");
  assert.throws(() => spliceEdits("abcdef", [{ start: 0, end: 3, newText: "" }, { start: 2, end: 4, newText: "" }]));
});

test("the update is sent exactly as copied, for the document's version", () => {
  const update = "\n    x = 1  \r\n// ... existing code ...\n\n";
  assert.deepEqual(buildApplyArgs("file:///tmp/a.ts", 4, update), { uri: "file:///tmp/a.ts", version: 4, update });
});

test("an empty or oversized clipboard is not sent as an update", () => {
  assert.equal(validateUpdate("def f():\n    return 1\n"), undefined);
  assert.match(validateUpdate("") ?? "", /clipboard is empty/);
  assert.match(validateUpdate(" \n\t\r\n") ?? "", /clipboard is empty/);
  assert.equal(validateUpdate("x".repeat(MAX_UPDATE_CHARS)), undefined);
  assert.match(validateUpdate("x".repeat(MAX_UPDATE_CHARS + 1)) ?? "", /more than an update may/);
});

test("a chat answer needs a code block and fits the server's limit", () => {
  assert.match(validateAnswer("  \n") ?? "", /empty/);
  assert.match(validateAnswer("Just prose, no code.") ?? "", /no code block/);
  assert.match(validateAnswer("x".repeat(MAX_UPDATE_CHARS + 1)) ?? "", /more than an answer may/);
  assert.equal(validateAnswer("Here:\n\n```python src/a.py\nx = 1\n```\n"), undefined);
  assert.equal(validateAnswer("~~~\nx\n~~~\n"), undefined);
  assert.deepEqual(buildAnswerArgs("t"), { text: "t" });
  assert.deepEqual(buildAnswerArgs("t", "file:///a.py", 3), { text: "t", uri: "file:///a.py", version: 3 });
  assert.equal(ANSWER_COMMAND, "cad.applyAnswer");
});

test("an answer's files: a CreateFile and its edit are one new file; other operations are not an answer's", () => {
  const edit = { range: { start: pos(0, 0), end: pos(0, 0) }, newText: "x" };
  const files = answerFiles([
    { textDocument: { uri: "file:///w/a.py", version: 4 }, edits: [edit] },
    { textDocument: { uri: "file:///w/b.py", version: null }, edits: [edit, edit] },
    { kind: "create", uri: "file:///w/c.py" },
    { textDocument: { uri: "file:///w/c.py", version: null }, edits: [edit] },
  ]);
  assert.deepEqual(files, [
    { uri: "file:///w/a.py", version: 4, created: false, edits: [edit] },
    { uri: "file:///w/b.py", version: null, created: false, edits: [edit, edit] },
    { uri: "file:///w/c.py", version: null, created: true, edits: [edit] },
  ]);
  assert.equal(answerFiles([{ kind: "delete", uri: "file:///w/a.py" }]), undefined);
});

test("the answer's review asks once for every file, warning where lines go unseen", () => {
  const names = [{ name: "a.py", created: false }, { name: "c.py", created: true }];
  assert.deepEqual(answerQuestion(names), { text: "Apply the chat answer to 2 files: a.py, c.py (new)?", warn: false });
  const note = "a.py: the merge removes 2 lines the update did not show (file lines 5-6): check them before accepting";
  const asked = answerQuestion(names, { [`${ANSWER_UNSEEN_ANNOTATION}:a.py`]: { description: note }, other: {} });
  assert.equal(asked.warn, true);
  assert.ok(asked.text.endsWith(`${note}.`));
});
