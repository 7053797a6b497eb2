import * as vscode from "vscode";
import {
  CancellationToken,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import {
  ANSWER_COMMAND,
  ANSWER_LABEL,
  APPLY_COMMAND,
  EDIT_COMMAND,
  Settings,
  buildAnswerArgs,
  buildApplyArgs,
  buildEditArgs,
  buildInitializationOptions,
  describeResult,
  editRange,
  serverCommand,
  validateAnswer,
  validateInstruction,
  validateUpdate,
} from "./args";
import { handleProgress } from "./progress";
import { applyAnswer, registerReview, reviewEdit } from "./review";

let client: LanguageClient | undefined;

function readSettings(): Settings {
  const config = vscode.workspace.getConfiguration("cadLsp");
  return {
    serverCommand: config.get<string>("serverCommand"),
    serverArgs: config.get<string[]>("serverArgs"),
    model: config.get<string>("model"),
    device: config.get<string>("device"),
    dtype: config.get<string>("dtype"),
    backend: config.get<string>("backend"),
    vllmUrl: config.get<string>("vllmUrl"),
    maxTokens: config.get<number | null>("maxTokens"),
    maxDocuments: config.get<number | null>("maxDocuments"),
    contextLines: config.get<number | null>("contextLines"),
    speculation: config.get<boolean>("speculation"),
    review: config.get<boolean>("review"),
  };
}

function createClient(): LanguageClient {
  const settings = readSettings();
  const { command, args } = serverCommand(settings);
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    // The server edits any language, so every file and unsaved buffer is synced.
    documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
    initializationOptions: buildInitializationOptions(settings),
    middleware: {
      workspace: {
        // The server's edits: reviewed in a diff (cadLsp.review), or applied by the client as they are.
        handleApplyEdit: (params, next) => {
          const apply = async (p: typeof params) => next(p, CancellationToken.None);
          if (settings.review !== false) return reviewEdit(created, params, apply);
          return params.label === ANSWER_LABEL ? applyAnswer(created, params, apply) : apply(params);
        },
      },
      handleWorkDoneProgress: (token, params, next) => handleProgress(created, token, params, () => next(token, params)),
    },
  };
  const created = new LanguageClient("cadLsp", "cad-lsp", serverOptions, clientOptions);
  return created;
}

async function startClient(): Promise<void> {
  client = createClient();
  try {
    await client.start();
  } catch (error) {
    void vscode.window.showErrorMessage(`cad-lsp: could not start the server: ${String(error)}`);
  }
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  if (old?.isRunning()) {
    await old.stop();
  }
}

async function editSelection(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showWarningMessage("cad-lsp: no active editor.");
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage("cad-lsp: the server is not running.");
    return;
  }
  const running = client;
  const { document, selection } = editor;
  const line = document.lineAt(selection.active.line);
  const c2p = running.code2ProtocolConverter;
  // Range and version are taken together before the prompt: if the document
  // changes meanwhile, the server's versioned edit is refused rather than
  // landing on the wrong lines.
  const range = editRange(c2p.asRange(selection), document.lineCount, line.text.length);
  const version = document.version;

  const instruction = await vscode.window.showInputBox({
    title: "cad-lsp: AI edit selection",
    prompt: "How should the selected code be changed?",
    ignoreFocusOut: true,
    validateInput: validateInstruction,
  });
  if (instruction === undefined) {
    return; // Cancelled.
  }

  await runCommand(running, EDIT_COMMAND, buildEditArgs(c2p.asUri(document.uri), version, range, instruction));
}

/**
 * Merges the update on the clipboard (a chat model's changed code, unchanged
 * stretches elided by `// ... existing code ...`) into the active document.
 * The server finds where it goes; its edit is reviewed as any other.
 */
async function applyUpdateFromClipboard(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showWarningMessage("cad-lsp: no active editor.");
    return;
  }
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage("cad-lsp: the server is not running.");
    return;
  }
  const running = client;
  const { document } = editor;
  const version = document.version; // the version the update was meant for: a later change refuses the edit
  const update = await vscode.env.clipboard.readText();
  const problem = validateUpdate(update);
  if (problem !== undefined) {
    void vscode.window.showWarningMessage(`cad-lsp: ${problem}`);
    return;
  }
  const uri = running.code2ProtocolConverter.asUri(document.uri);
  await runCommand(running, APPLY_COMMAND, buildApplyArgs(uri, version, update));
}

/**
 * Applies the chat answer on the clipboard to every file it names (blocks
 * that name none go to the active file): one review of all of them, applied
 * all or nothing.
 */
async function applyAnswerFromClipboard(): Promise<void> {
  if (!client?.isRunning()) {
    void vscode.window.showErrorMessage("cad-lsp: the server is not running.");
    return;
  }
  const running = client;
  const document = vscode.window.activeTextEditor?.document;
  const version = document?.version; // taken with the clipboard: a later change of the active file refuses it
  const text = await vscode.env.clipboard.readText();
  const problem = validateAnswer(text);
  if (problem !== undefined) {
    void vscode.window.showWarningMessage(`cad-lsp: ${problem}`);
    return;
  }
  const uri = document && !document.isUntitled ? running.code2ProtocolConverter.asUri(document.uri) : undefined;
  await runCommand(running, ANSWER_COMMAND, buildAnswerArgs(text, uri, uri === undefined ? undefined : version));
}

/** Sends one of the server's commands and waits for its outcome; the edit itself arrives (and is reviewed) meanwhile. */
async function runCommand(running: LanguageClient, command: string, args: object): Promise<void> {
  try {
    const result = await running.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
    const { ok, message, shownByServer, removedUnseen } = describeResult(result);
    const reviewed = vscode.workspace.getConfiguration("cadLsp").get<boolean>("review") !== false;
    if (ok && removedUnseen && !reviewed) {
      // lines removed that the update did not show, in an edit nobody reviewed: not a passing status
      void vscode.window.showWarningMessage(`cad-lsp: ${message}`);
    } else if (ok) {
      vscode.window.setStatusBarMessage(`cad-lsp: ${message}`, 5000);
    } else if (!shownByServer) {
      void vscode.window.showWarningMessage(`cad-lsp: ${message}`);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`cad-lsp: ${message}`);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    registerReview(),
    vscode.commands.registerCommand("cadLsp.editSelection", editSelection),
    vscode.commands.registerCommand("cadLsp.applyUpdateFromClipboard", applyUpdateFromClipboard),
    vscode.commands.registerCommand("cadLsp.applyAnswerFromClipboard", applyAnswerFromClipboard),
    vscode.commands.registerCommand("cadLsp.restartServer", async () => {
      await stopClient();
      await startClient();
    }),
    // Settings reach the server only at initialization, so a change restarts it.
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("cadLsp")) {
        await stopClient();
        await startClient();
      }
    }),
  );
  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
