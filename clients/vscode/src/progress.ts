// The server's cancellable progress (an edit) as a notification with a Cancel
// button. vscode-languageclient shows all server progress in the status bar,
// where there is no Cancel; other progress (the model load) stays there.
import * as vscode from "vscode";
import {
  BaseLanguageClient,
  ProgressToken,
  WorkDoneProgressBegin,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from "vscode-languageclient/node";

type Value = WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd;

interface Shown {
  report(message: string | undefined): void;
  end(): void;
}

const shown = new Map<ProgressToken, Shown>();

/** A `middleware.handleWorkDoneProgress`: cancellable progress is shown here, the rest by the client. */
export function handleProgress(
  client: BaseLanguageClient,
  token: ProgressToken,
  value: Value,
  next: () => void,
): void {
  if (value.kind === "begin" && value.cancellable) {
    shown.set(token, notify(value, () => void client.sendNotification(WorkDoneProgressCancelNotification.type, { token })));
    return;
  }
  const notification = shown.get(token);
  if (notification === undefined) return next();
  if (value.kind === "report") notification.report(value.message);
  if (value.kind === "end") {
    shown.delete(token);
    notification.end();
    next(); // the client's own progress part for this token ends too
  }
}

/** Ends the notifications shown: when an edit reaches its review, its decoding is over. */
export function endProgressNotifications(): void {
  for (const notification of shown.values()) notification.end();
  shown.clear();
}

function notify(begin: WorkDoneProgressBegin, cancel: () => void): Shown {
  let progress: vscode.Progress<{ message?: string }> | undefined;
  let end = () => {};
  let ended = false;
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: begin.title, cancellable: true },
    (p, token) => {
      progress = p;
      p.report({ message: begin.message });
      token.onCancellationRequested(cancel);
      return ended ? Promise.resolve() : new Promise<void>((resolve) => (end = resolve));
    },
  );
  return {
    report: (message) => progress?.report({ message }),
    end: () => {
      ended = true;
      end();
    },
  };
}
