// Plain helpers with no dependency on the `vscode` module, so that they can be
// unit-tested with node:test outside the editor.

export const EDIT_COMMAND = "cad.editSelection";
export const APPLY_COMMAND = "cad.applyUpdate";
/** The longest update the server accepts, in characters (its own limit, MAX_UPDATE_CHARS). */
export const MAX_UPDATE_CHARS = 1 << 20;

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** The single argument of the server's `cad.editSelection` command. */
export interface EditSelectionArgs {
  uri: string;
  version: number;
  range: Range;
  instruction: string;
}

/** The single argument of the server's `cad.applyUpdate` command. */
export interface ApplyUpdateArgs {
  uri: string;
  version: number;
  update: string;
}

/** The reply of `cad.editSelection` and `cad.applyUpdate`. */
export interface EditSelectionResult {
  applied: boolean;
  message: string;
  /** An update's: the file lines [first, last] its merge removes that the update did not show. */
  removedUnseen?: [number, number][];
}

/**
 * The change annotation the server puts on an update's edit whose merge
 * removes file lines the update did not show; its description says which.
 */
export const UNSEEN_ANNOTATION = "cad-lsp.unseen";

/** The `cadLsp.*` settings, as read from the workspace configuration. */
export interface Settings {
  serverCommand?: string;
  serverArgs?: string[];
  model?: string;
  device?: string;
  dtype?: string;
  backend?: string;
  vllmUrl?: string;
  maxTokens?: number | null;
  maxDocuments?: number | null;
  contextLines?: number | null;
  speculation?: boolean;
  review?: boolean;
}

export interface InitializationOptions {
  model?: string;
  device?: string;
  dtype?: string;
  backend?: string;
  vllmUrl?: string;
  maxTokens?: number;
  maxDocuments?: number;
  contextLines?: number;
  speculation?: boolean;
  needsConfirmation?: boolean;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * Builds the server's initializationOptions. Unset or empty settings are left
 * out so that the server applies its own defaults. The server never asks for
 * VS Code's refactor preview (it opens with every change unticked): the
 * extension reviews edits itself when `cadLsp.review` is on.
 */
export function buildInitializationOptions(settings: Settings): InitializationOptions {
  const options: InitializationOptions = {};
  for (const key of ["model", "device", "dtype", "backend", "vllmUrl"] as const) {
    const value = nonEmpty(settings[key]);
    if (value !== undefined) options[key] = value;
  }
  for (const key of ["maxTokens", "maxDocuments", "contextLines"] as const) {
    const value = settings[key];
    if (typeof value === "number" && Number.isInteger(value) && value > 0) options[key] = value;
  }
  if (typeof settings.speculation === "boolean") options.speculation = settings.speculation;
  options.needsConfirmation = false;
  return options;
}

/** The executable and arguments that start the server. */
export function serverCommand(settings: Settings): { command: string; args: string[] } {
  return {
    command: nonEmpty(settings.serverCommand) ?? "cad-lsp",
    args: Array.isArray(settings.serverArgs) ? settings.serverArgs.map(String) : ["serve"],
  };
}

/** Returns an error message for an unusable instruction, or undefined if it is fine. */
export function validateInstruction(value: string): string | undefined {
  return value.trim() ? undefined : "The instruction must not be empty.";
}

/**
 * The range to edit: the selection itself, or the whole line under the cursor
 * when the selection is empty. The line's range includes its line break when
 * there is a next line, so that the edit replaces complete lines.
 *
 * `lineLength` is the length of the cursor's line in UTF-16 code units, which is
 * what both VS Code and LSP (by default) count in.
 */
export function editRange(selection: Range, lineCount: number, lineLength: number): Range {
  const { start, end } = selection;
  if (start.line !== end.line || start.character !== end.character) {
    return selection;
  }
  const line = start.line;
  if (line + 1 < lineCount) {
    return { start: { line, character: 0 }, end: { line: line + 1, character: 0 } };
  }
  return { start: { line, character: 0 }, end: { line, character: lineLength } };
}

export function buildEditArgs(
  uri: string,
  version: number,
  range: Range,
  instruction: string,
): EditSelectionArgs {
  return { uri, version, range, instruction: instruction.trim() };
}

/**
 * Returns why `text` (the clipboard) cannot be sent as an update, or undefined
 * if it can. Checked before sending so that an empty clipboard says so plainly.
 */
export function validateUpdate(text: string): string | undefined {
  if (!text.trim()) return "The clipboard is empty: copy the update (the changed code) first.";
  if (text.length > MAX_UPDATE_CHARS) {
    return `The clipboard holds ${text.length} characters, more than an update may (${MAX_UPDATE_CHARS}).`;
  }
  return undefined;
}

/**
 * The argument of `cad.applyUpdate`: the update exactly as copied (its blank
 * lines and indentation place it in the file), for the document's version.
 */
export function buildApplyArgs(uri: string, version: number, update: string): ApplyUpdateArgs {
  return { uri, version, update };
}

/**
 * A message for the user from the command's reply, whatever shape it has.
 * `shownByServer`: the server has already told the user with
 * window/showMessage (it does so for every edit it did not apply), so the
 * client should not show the same message a second time.
 */
export function describeResult(result: unknown): {
  ok: boolean;
  message: string;
  shownByServer: boolean;
  removedUnseen: boolean;
} {
  if (result && typeof result === "object" && "applied" in result) {
    const { applied, message, removedUnseen } = result as Partial<EditSelectionResult>;
    const hasMessage = typeof message === "string" && message.length > 0;
    const text = hasMessage ? message : applied ? "Edit applied." : "Edit not applied.";
    const shownByServer = applied === false && hasMessage;
    const unseen = Array.isArray(removedUnseen) && removedUnseen.length > 0;
    return { ok: applied === true, message: text, shownByServer, removedUnseen: unseen };
  }
  return { ok: false, message: "cad-lsp returned an unexpected reply.", shownByServer: false, removedUnseen: false };
}

/**
 * What the review asks about an edit. One under UNSEEN_ANNOTATION asks with a
 * warning that quotes the annotation (where the edit is, and which lines the
 * merge removes that the update did not show): they are for the user to check.
 */
export function reviewQuestion(
  label: string,
  name: string,
  annotations?: { [id: string]: { description?: string } },
): { text: string; warn: boolean } {
  const unseen = annotations?.[UNSEEN_ANNOTATION]?.description;
  if (unseen) return { text: `${label}: ${unseen}. Accept the edit shown in the diff?`, warn: true };
  return { text: `${label} (${name}): accept the edit shown in the diff?`, warn: false };
}

/** A text edit in character offsets of the document's text (UTF-16, as JavaScript strings count). */
export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

/**
 * The text after the edits, for the review: each edit replaces text of the
 * original, so they are spliced from the last to the first. Overlapping
 * edits are an error, as in VS Code.
 */
export function spliceEdits(text: string, edits: OffsetEdit[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].start < sorted[i - 1].end) throw new Error("overlapping edits");
  }
  let result = text;
  for (const edit of sorted.reverse()) {
    result = result.slice(0, edit.start) + edit.newText + result.slice(edit.end);
  }
  return result;
}

// ---------------------------------------------------------------------------
// A whole chat answer: every file it touches, one review

export const ANSWER_COMMAND = "cad.applyAnswer";
/** The label the server gives the one WorkspaceEdit of an answer: the review asks about all its files at once. */
export const ANSWER_LABEL = "cad-lsp: apply a chat answer";
/** Change annotations of an answer's files whose merge removes lines the answer did not show start with this. */
export const ANSWER_UNSEEN_ANNOTATION = "cad-lsp.answer.unseen";

/** The single argument of the server's `cad.applyAnswer` command. */
export interface ApplyAnswerArgs {
  text: string;
  uri?: string;
  version?: number;
}

/**
 * Returns why `text` (the clipboard) cannot be sent as a chat answer, or
 * undefined if it can: it must hold at least one fenced code block.
 */
export function validateAnswer(text: string): string | undefined {
  if (!text.trim()) return "The clipboard is empty: copy the chat answer first.";
  if (text.length > MAX_UPDATE_CHARS) {
    return `The clipboard holds ${text.length} characters, more than an answer may (${MAX_UPDATE_CHARS}).`;
  }
  if (!/^ {0,3}(`{3,}|~{3,})/m.test(text)) {
    return "The clipboard holds no code block: copy the whole chat answer, with its ``` blocks.";
  }
  return undefined;
}

/**
 * The argument of `cad.applyAnswer`: the answer as copied and, when a file is
 * active, its uri and version (blocks that name no file go to it; a later
 * change of it refuses the answer).
 */
export function buildAnswerArgs(text: string, uri?: string, version?: number): ApplyAnswerArgs {
  return uri === undefined ? { text } : { text, uri, version };
}

/** One file of an answer's WorkspaceEdit: its uri, the version its edits are for (null: not open), its edits. */
export interface AnswerFile<E> {
  uri: string;
  version: number | null;
  created: boolean;
  edits: E[];
}

interface ChangeLike<E> {
  kind?: string;
  uri?: string;
  textDocument?: { uri: string; version: number | null };
  edits?: E[];
}

/**
 * The files of an answer's `documentChanges`, in order: a CreateFile and the
 * edit that fills it are one new file. Other resource operations (rename,
 * delete) are not an answer's: undefined, so the client's own handler takes it.
 */
export function answerFiles<E>(changes: ChangeLike<E>[]): AnswerFile<E>[] | undefined {
  const files: AnswerFile<E>[] = [];
  const created = new Set<string>();
  for (const change of changes) {
    if (change.kind === "create" && typeof change.uri === "string") {
      created.add(change.uri);
    } else if (change.kind === undefined && change.textDocument && Array.isArray(change.edits)) {
      const { uri, version } = change.textDocument;
      files.push({ uri, version: version ?? null, created: created.has(uri), edits: change.edits });
    } else {
      return undefined;
    }
  }
  return files;
}

/**
 * What the review of an answer asks: every file by name (new ones marked),
 * and as a warning quoting the notes where a merge removes lines the answer
 * did not show.
 */
export function answerQuestion(
  names: { name: string; created: boolean }[],
  annotations?: { [id: string]: { description?: string } },
): { text: string; warn: boolean } {
  const listed = names.map((file) => (file.created ? `${file.name} (new)` : file.name)).join(", ");
  const count = `${names.length} file${names.length === 1 ? "" : "s"}`;
  const unseen = Object.entries(annotations ?? {})
    .filter(([id, annotation]) => id.startsWith(ANSWER_UNSEEN_ANNOTATION) && annotation.description)
    .map(([, annotation]) => annotation.description);
  if (unseen.length) {
    return { text: `Apply the chat answer to ${count}: ${listed}? ${unseen.join("; ")}.`, warn: true };
  }
  return { text: `Apply the chat answer to ${count}: ${listed}?`, warn: false };
}
