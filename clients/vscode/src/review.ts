// Review before apply: the server's edit opens as a diff against the proposed
// text; Accept applies it as one plain edit (one undo step; a chat answer, one per file), Reject or closing
// the diff applies nothing. VS Code's own refactor preview is not used: it
// opens annotated edits with every change unticked, so its Apply applies nothing.
import * as path from "node:path";
import * as vscode from "vscode";
import {
  ApplyWorkspaceEditParams,
  ApplyWorkspaceEditResult,
  BaseLanguageClient,
  ResponseError,
  TextDocumentEdit,
  TextEdit,
} from "vscode-languageclient/node";
import { ANSWER_LABEL, answerFiles, answerQuestion, reviewQuestion, spliceEdits } from "./args";
import { endProgressNotifications } from "./progress";

export const REVIEW_SCHEME = "cad-lsp-review";
export const REJECTED = "rejected in review";
export const CHANGED = "the document changed during the review";
const ANSWER_REVIEW_TITLE = "cad-lsp: chat answer (review)";

/** The proposed texts, served read-only as the right side of review diffs. */
class ProposedTexts implements vscode.TextDocumentContentProvider {
  readonly texts = new Map<string, string>();
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "";
  }
}

const proposed = new ProposedTexts();
/** Open reviews: the proposed text's URI -> how to end that review. */
const decide = new Map<string, (accept: boolean) => void>();
let reviews = 0;

type Planned = { uri: vscode.Uri; created: boolean; before: string; edits: vscode.TextEdit[] };
type Applied = ApplyWorkspaceEditResult | ResponseError<void>;
type Next = (params: ApplyWorkspaceEditParams) => Promise<Applied>;

/** An answer's files, when each is text edits of a document (created first or not); else undefined. */
function textFiles(params: ApplyWorkspaceEditParams) {
  const files = answerFiles(params.edit.documentChanges as never[]);
  return files?.length && files.every((file) => file.edits.every(TextEdit.is)) ? files : undefined;
}

export function registerReview(): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.workspace.registerTextDocumentContentProvider(REVIEW_SCHEME, proposed),
    vscode.commands.registerCommand("cadLsp.acceptEdit", () => decideActive(true)),
    vscode.commands.registerCommand("cadLsp.rejectEdit", () => decideActive(false)),
  );
}

/** The editor title buttons: they decide the review shown in the active tab (or the latest one). */
function decideActive(accept: boolean): void {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const key = input instanceof vscode.TabInputTextDiff ? input.modified.toString() : [...decide.keys()].pop();
  if (key !== undefined) decide.get(key)?.(accept);
}

/**
 * Handles the server's workspace/applyEdit: shows the edit and applies it only
 * if the user accepts, and only to the version it was computed for. Anything
 * other than text edits of one document goes to `next`, the client's own handler.
 */
export async function reviewEdit(
  client: BaseLanguageClient,
  params: ApplyWorkspaceEditParams,
  next: (params: ApplyWorkspaceEditParams) => Promise<ApplyWorkspaceEditResult | ResponseError<void>>,
): Promise<ApplyWorkspaceEditResult | ResponseError<void>> {
  const changes = params.edit.documentChanges;
  if (params.label === ANSWER_LABEL && changes && !params.edit.changes) {
    return reviewAnswer(client, params, next);
  }
  const change = changes?.length === 1 && !params.edit.changes ? changes[0] : undefined;
  if (!TextDocumentEdit.is(change) || !change.edits.every(TextEdit.is)) {
    return next(params);
  }
  const uri = client.protocol2CodeConverter.asUri(change.textDocument.uri);
  const version = change.textDocument.version;
  const document = await vscode.workspace.openTextDocument(uri);
  if (version !== null && document.version !== version) {
    return { applied: false, failureReason: "the document changed before the review" };
  }
  const edits = await client.protocol2CodeConverter.asTextEdits(change.edits as TextEdit[]);
  const after = spliceEdits(
    document.getText(),
    edits.map((e) => ({ start: document.offsetAt(e.range.start), end: document.offsetAt(e.range.end), newText: e.newText })),
  );

  endProgressNotifications(); // its Cancel would no longer stop anything
  const name = path.basename(uri.path);
  const right = uri.with({ scheme: REVIEW_SCHEME, query: String(++reviews) });
  proposed.texts.set(right.toString(), after);
  try {
    const question = reviewQuestion(params.label ?? "cad-lsp edit", name, params.edit.changeAnnotations);
    const accept = await ask(uri, right, name, question);
    if (!accept) return { applied: false, failureReason: REJECTED };
    if (version !== null && document.version !== version) return { applied: false, failureReason: CHANGED };
    const plain = new vscode.WorkspaceEdit();
    plain.set(uri, edits); // no annotations: applied as it is, one undo step
    const applied = await vscode.workspace.applyEdit(plain);
    return applied ? { applied } : { applied, failureReason: "VS Code could not apply the edit" };
  } finally {
    proposed.texts.delete(right.toString());
    decide.delete(right.toString());
    await closeDiff(right);
  }
}

/**
 * Opens the diff and waits for Accept (notification or title button), Reject, or the diff closing; the
 * question is a warning when the edit removes lines the update did not show.
 */
async function ask(
  left: vscode.Uri,
  right: vscode.Uri,
  name: string,
  question: { text: string; warn: boolean },
): Promise<boolean> {
  let closed: vscode.Disposable | undefined;
  const decision = new Promise<boolean>((resolve) => {
    decide.set(right.toString(), resolve);
    closed = vscode.window.tabGroups.onDidChangeTabs((event) => {
      if (event.closed.some((tab) => isDiff(tab, right))) resolve(false);
    });
    const asked = question.warn
      ? vscode.window.showWarningMessage(question.text, "Accept", "Reject")
      : vscode.window.showInformationMessage(question.text, "Accept", "Reject");
    void asked.then((choice) => resolve(choice === "Accept"));
  });
  try {
    await vscode.commands.executeCommand("vscode.diff", left, right, `${name}: proposed edit (review)`, { preview: false });
    return await decision;
  } finally {
    closed?.dispose();
  }
}

function isDiff(tab: vscode.Tab, right: vscode.Uri): boolean {
  return tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === right.toString();
}

async function closeDiff(right: vscode.Uri): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => isDiff(tab, right));
  if (tabs.length) await vscode.window.tabGroups.close(tabs);
}

/**
 * A chat answer's one WorkspaceEdit, reviewed at once: every file in one
 * multi-file diff (one diff per file where VS Code has none), one question,
 * Accept All or Reject All. Accepted, the edit is applied
 * file by file (applyAnswer: one undo step per file), all or nothing, and refuses it
 * if an open document moved on, a file to create appeared, or a file changed.
 */
async function reviewAnswer(client: BaseLanguageClient, params: ApplyWorkspaceEditParams, next: Next): Promise<Applied> {
  const files = textFiles(params);
  if (!files) return next(params);
  const review = ++reviews;
  const shown: { uri: vscode.Uri; left: vscode.Uri; right: vscode.Uri; name: string; created: boolean }[] = [];
  for (const file of files) {
    const uri = client.protocol2CodeConverter.asUri(file.uri);
    let before = "";
    let left = uri.with({ scheme: REVIEW_SCHEME, query: `${review}-empty` });
    if (!file.created) {
      const document = await vscode.workspace.openTextDocument(uri);
      if (file.version !== null && document.version !== file.version) {
        return { applied: false, failureReason: "a document changed before the review" };
      }
      before = document.getText();
      left = uri;
      const edits = await client.protocol2CodeConverter.asTextEdits(file.edits as TextEdit[]);
      const after = spliceEdits(
        before,
        edits.map((e) => ({ start: document.offsetAt(e.range.start), end: document.offsetAt(e.range.end), newText: e.newText })),
      );
      const right = uri.with({ scheme: REVIEW_SCHEME, query: String(review) });
      proposed.texts.set(right.toString(), after);
      shown.push({ uri, left, right, name: vscode.workspace.asRelativePath(uri), created: false });
    } else {
      const after = (file.edits as TextEdit[]).map((e) => e.newText).join("");
      const right = uri.with({ scheme: REVIEW_SCHEME, query: String(review) });
      proposed.texts.set(left.toString(), "");
      proposed.texts.set(right.toString(), after);
      shown.push({ uri, left, right, name: vscode.workspace.asRelativePath(uri), created: true });
    }
  }
  endProgressNotifications();
  try {
    const question = answerQuestion(shown, params.edit.changeAnnotations);
    const asked = question.warn
      ? vscode.window.showWarningMessage(question.text, "Accept All", "Reject All")
      : vscode.window.showInformationMessage(question.text, "Accept All", "Reject All");
    try {
      await vscode.commands.executeCommand(
        "vscode.changes",
        ANSWER_REVIEW_TITLE,
        shown.map((file) => [file.uri, file.left, file.right]),
      );
    } catch {
      for (const file of shown) {
        await vscode.commands.executeCommand("vscode.diff", file.left, file.right, `${file.name}: chat answer (review)`, {
          preview: false,
        });
      }
    }
    if ((await asked) !== "Accept All") return { applied: false, failureReason: REJECTED };
    return await applyAnswer(client, params, next);
  } finally {
    for (const file of shown) {
      proposed.texts.delete(file.right.toString());
      proposed.texts.delete(file.left.toString());
      await closeDiff(file.right);
    }
    // The multi-file diff's tab has no input type in the API (closeDiff does not see it): found by its title,
    // which VS Code shows followed by the count of files.
    const multi = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => tab.label.startsWith(ANSWER_REVIEW_TITLE) && !(tab.input instanceof vscode.TabInputText));
    if (multi.length) await vscode.window.tabGroups.close(multi);
  }
}


/**
 * Applies a chat answer's edit one file at a time, so that each file is one undo step of its own: VS Code makes
 * a multi-file edit one workspace undo, which an Undo in one of its files does not take back. Every file is
 * checked before any is written (an open document at the version the edit was made for, a file to create not
 * there yet); a file VS Code then refuses takes back the files applied before it: all or nothing.
 */
export async function applyAnswer(client: BaseLanguageClient, params: ApplyWorkspaceEditParams, next: Next): Promise<Applied> {
  const files = textFiles(params);
  if (!files) return next(params);
  const planned: Planned[] = [];
  for (const file of files) {
    const uri = client.protocol2CodeConverter.asUri(file.uri);
    const edits = await client.protocol2CodeConverter.asTextEdits(file.edits as TextEdit[]);
    if (file.created) {
      if (await exists(uri)) return { applied: false, failureReason: `${vscode.workspace.asRelativePath(uri)} exists already` };
      planned.push({ uri, created: true, before: "", edits });
      continue;
    }
    const document = await vscode.workspace.openTextDocument(uri);
    if (file.version !== null && document.version !== file.version) return { applied: false, failureReason: CHANGED };
    planned.push({ uri, created: false, before: document.getText(), edits });
  }
  const applied: Planned[] = [];
  for (const file of planned) {
    const edit = new vscode.WorkspaceEdit();
    if (file.created) edit.createFile(file.uri, { overwrite: false, ignoreIfExists: false });
    for (const e of file.edits) edit.replace(file.uri, e.range, e.newText);
    if (!(await vscode.workspace.applyEdit(edit))) {
      await takeBack(applied);
      return { applied: false, failureReason: `VS Code could not apply the edit of ${vscode.workspace.asRelativePath(file.uri)}` };
    }
    applied.push(file);
  }
  return { applied: true };
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Gives the files applied so far their texts back (a created one is deleted). */
async function takeBack(applied: Planned[]): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  for (const file of applied) {
    if (file.created) {
      edit.deleteFile(file.uri, { ignoreIfNotExists: true });
    } else {
      const document = await vscode.workspace.openTextDocument(file.uri);
      edit.replace(file.uri, new vscode.Range(new vscode.Position(0, 0), document.positionAt(document.getText().length)), file.before);
    }
  }
  await vscode.workspace.applyEdit(edit);
}
