// The extension inside a real VS Code (code-server), driven through Chromium as a user would:
// keyboard, menus, notifications. Started by .ci/vscode.sh, which owns the code-server process.
// Assertions are on the files' bytes on disk and on what the UI shows.
//
// Environment: CODE_SERVER_URL, WORKSPACE (an empty folder the server has open), USER_DATA (its
// --user-data-dir), PYTHON (with cad_lsp installed), PLAYWRIGHT (the playwright-core package folder),
// SHOTS (where screenshots go, if set), FAILURES (where a failed step's screenshot goes, if set),
// STEPS (a regular expression: run only the steps whose names match).
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";

const require = createRequire(import.meta.url);
const { chromium } = require(process.env.PLAYWRIGHT);
const URL = process.env.CODE_SERVER_URL;
const WORKSPACE = process.env.WORKSPACE;
const SHOTS = process.env.SHOTS;
const COMMENT = "# checked: the bound includes the last element"; // bench/scripted.py's planned line

// ---------------------------------------------------------------------------------------------
// The workspace

const CALC = [
  "def total(prices, tax):\n",
  "    subtotal = sum(prices)\n",
  "    return subtotal * (1 + tax)\n",
  "\n",
  "\n",
  "def last_items(items, n):\n",
  "    # AI: make the bound inclusive\n",
  "    end = len(items) - 1\n",
  "    return items[end - n:end]\n",
].join("");
// A chat model's update to calc.py: a check added to total(), the rest elided by a marker.
const UPDATE = [
  "def total(prices, tax):\n",
  "    subtotal = sum(prices)\n",
  "    if subtotal < 0:\n",
  '        raise ValueError("a negative total")\n',
  "    return subtotal * (1 + tax)\n",
  "# ... existing code ...\n",
].join("");
// All CRLF, with emoji (two UTF-16 units each) inside and outside the edited lines.
const GREET = [
  "def greet(name):\r\n",
  '    message = "h\u00e9llo \u{1F600} " + name\r\n',
  "    return message\r\n",
  "\r\n",
  "\r\n",
  "def shout(name):\r\n",
  '    return greet(name).upper() + " \u{1F389}"\r\n',
].join("");

// A chat answer that changes two files (shop/cart.py open in an editor, shop/prices.py on disk only) and
// creates a third: one block per file, each named on the line before it, cart.py's rest elided by a marker.
const CART = [
  "from shop.prices import price_of\n",
  "\n",
  "\n",
  "def cart_total(items):\n",
  "    total = 0\n",
  "    for item in items:\n",
  "        total += price_of(item)\n",
  "    return total\n",
  "\n",
  "\n",
  "def cart_size(items):\n",
  "    return len(items)\n",
].join("");
const PRICES = ['PRICES = {"apple": 3, "pear": 4}\n', "\n", "\n", "def price_of(item):\n", "    return PRICES[item]\n"].join("");
const DISCOUNTS = [
  'DISCOUNTS = {"pear": 0.5}\n',
  "\n",
  "\n",
  "def discounted(item, price):\n",
  "    return price * (1 - DISCOUNTS.get(item, 0))\n",
].join("");
const ANSWER = [
  "Prices now refuse unknown items, and the cart applies discounts from a new module.\n",
  "\n",
  "**shop/prices.py**\n",
  "```python\n",
  "def price_of(item):\n",
  "    if item not in PRICES:\n",
  '        raise KeyError(f"no price for {item}")\n',
  "    return PRICES[item]\n",
  "```\n",
  "\n",
  "**shop/cart.py**\n",
  "```python\n",
  "from shop.discounts import discounted\n",
  "from shop.prices import price_of\n",
  "\n",
  "\n",
  "def cart_total(items):\n",
  "    total = 0\n",
  "    for item in items:\n",
  "        total += discounted(item, price_of(item))\n",
  "    return total\n",
  "# ... existing code ...\n",
  "```\n",
  "\n",
  "A new module:\n",
  "\n",
  "**shop/discounts.py**\n",
  "```python\n",
  DISCOUNTS,
  "```\n",
].join("");

function writeWorkspace() {
  fs.mkdirSync(path.join(WORKSPACE, ".vscode"), { recursive: true });
  fs.writeFileSync(path.join(WORKSPACE, "calc.py"), CALC);
  fs.writeFileSync(path.join(WORKSPACE, "greet.py"), GREET);
  fs.mkdirSync(path.join(WORKSPACE, "shop"));
  fs.writeFileSync(path.join(WORKSPACE, "shop", "cart.py"), CART);
  fs.writeFileSync(path.join(WORKSPACE, "shop", "prices.py"), PRICES);
  const settings = {
    // The real `cad-lsp serve` (the extension appends --stdio), teacher-forced through a known program;
    // MODEL_ARGS names another model (.ci/llamacpp.sh: a GGUF file, run by llama.cpp).
    "cadLsp.serverCommand": process.env.PYTHON,
    "cadLsp.serverArgs": ["-m", "bench.scripted", ...JSON.parse(process.env.MODEL_ARGS || '["--model", "random:tiny", "--dtype", "fp32"]')],
  };
  fs.writeFileSync(path.join(WORKSPACE, ".vscode", "settings.json"), JSON.stringify(settings, null, 2));
}

const disk = (name) => fs.readFileSync(path.join(WORKSPACE, name), "utf8");
const exists = (name) => fs.existsSync(path.join(WORKSPACE, name));

/** The file's text once it equals `expected` (saving is asynchronous), or after 20 s whatever it is: on a busy
 * machine the write has landed over 5 s after the tab turned clean. */
async function saved(name, expected) {
  const t0 = Date.now();
  while (disk(name) !== expected && Date.now() - t0 < 20000) await sleep(100);
  return disk(name);
}

/** The planned edit, computed here from plain lines: a comment line after line `first` (1-based). */
function withComment(text, first, { dropLine } = {}) {
  const lines = text.split(/(?<=\n)/);
  const next = lines[first] ?? lines[first - 1];
  const indent = next.match(/^[ \t]*/)[0];
  const ending = lines[first - 1].endsWith("\r\n") ? "\r\n" : "\n";
  const out = [...lines.slice(0, first), indent + COMMENT + ending, ...lines.slice(first)];
  return out.filter((line) => dropLine === undefined || !line.includes(dropLine)).join("");
}

// ---------------------------------------------------------------------------------------------
// Driving the workbench

let page;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, check, timeout = 30000) {
  const t0 = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - t0 > timeout) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/** Runs a command from the palette by its exact title. */
async function command(title) {
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  // The palette closes when something else takes the focus (the extension restarting its server after a
  // settings change, a notification): open it again, at most three times.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press("F1");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(`>${title}`);
    const row = page.locator(".quick-input-list .monaco-list-row", { has: page.locator(".label-name", { hasText: exact }) });
    try {
      await row.first().click({ timeout: 10000 });
      return;
    } catch (error) {
      if (attempt === 3) throw error;
      if (await input.isVisible()) await page.keyboard.press("Escape"); // never in the editor: it drops the selection
      await sleep(500);
    }
  }
}

/** Makes `name` the active editor: its tab if it has one, else Quick Open. */
async function openFile(name) {
  const tab = page.locator(".tab").filter({ hasText: new RegExp(`^${name.replace(".", "\\.")}$`) });
  if (await tab.count()) {
    await tab.first().click();
  } else {
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor();
    await input.fill(name);
    await page.locator(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`).first().waitFor();
    await page.keyboard.press("Enter");
  }
  await page.locator(`.tab.active[data-resource-name="${name}"]`).waitFor();
  await focusEditor();
}

async function focusEditor() {
  // VS Code 1.139 takes keyboard input through an EditContext element (a textarea before).
  const input = ".editor-group-container.active .monaco-editor :is(.native-edit-context, textarea.inputarea)";
  await page.locator(input).first().focus();
}

/** Selects whole lines first..last (1-based): from the start of `first` to the start of the next line. */
async function selectLines(first, last) {
  await focusEditor();
  await page.keyboard.press("Control+G");
  await page.locator(".quick-input-widget input").fill(`:${first}:1`);
  await page.keyboard.press("Enter");
  await sleep(150);
  for (let i = first; i <= last; i++) await page.keyboard.press("Shift+ArrowDown");
}

/** Saves the active editor: once it shows as modified (an applied edit marks it a moment later), or after 3 s. */
async function save() {
  await until("a modified editor", async () => (await page.locator(".tab.active.dirty").count()) > 0, 3000).catch(() => {});
  await command("File: Save");
  await until("the saved file", async () => (await page.locator(".tab.active.dirty").count()) === 0);
}

async function toasts() {
  return page.locator(".notifications-toasts .notification-toast").allInnerTexts();
}

async function clearNotifications() {
  await command("Notifications: Clear All Notifications");
  await until("no notifications", async () => (await toasts()).length === 0);
}

/** Waits until a notification containing `text` is shown; returns its locator. */
async function toast(text, timeout = 60000) {
  const locator = page.locator(".notifications-toasts .notification-toast", { hasText: text });
  await locator.first().waitFor({ timeout });
  return locator.first();
}

async function shoot(name) {
  if (!SHOTS) return;
  await page.screenshot({ path: path.join(SHOTS, name) });
}

/** Opens the Refactor menu on the selection and returns its entries' texts. */
async function refactorMenu() {
  await command("Refactor...");
  const rows = page.locator(".action-widget .monaco-list-row");
  await rows.first().waitFor();
  return rows.allInnerTexts();
}

async function pickAction(title) {
  await page.locator(".action-widget .monaco-list-row", { hasText: title }).first().click();
}

async function reviewShown() {
  await page.locator(".monaco-diff-editor").first().waitFor({ timeout: 60000 });
  return toast("accept the edit shown in the diff?");
}

/** The review of a chat answer: its multi-file diff and its question; returns the question's notification. */
async function answerReviewShown() {
  await page.locator(".tab", { hasText: "chat answer (review)" }).first().waitFor({ timeout: 60000 });
  return toast("Apply the chat answer to", 60000);
}

async function reviewTabs() {
  return page.locator(".tab", { hasText: "(review)" }).count();
}

async function editViaCommand(instruction) {
  await command("cad-lsp: AI edit selection");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor();
  await input.fill(instruction);
  await page.keyboard.press("Enter");
}

// ---------------------------------------------------------------------------------------------
// The steps

const steps = [];
const step = (name, fn) => steps.push({ name, fn });
const assert = (ok, message) => {
  if (!ok) throw new Error(message);
};
const assertEqual = (actual, expected, what) => {
  if (actual !== expected) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
};
const assertSaved = async (name, expected, what) => assertEqual(await saved(name, expected), expected, what);

step("the server starts with the default transport (--stdio) and loads its model", async () => {
  await command("View: Toggle Output");
  await page.locator(".panel select.monaco-select-box").first().selectOption({ label: "cad-lsp" });
  const output = page.locator(".panel .monaco-editor .view-lines");
  const log = await until("the model load in the output channel", async () => {
    const text = (await output.first().innerText().catch(() => "")).replace(/\u00a0/g, " ");
    return /loaded in/.test(text) || /crashed|unrecognized arguments/.test(text) ? text : undefined;
  }, 120000);
  assert(/loaded in/.test(log), `the server did not load its model:\n${log}`);
  assert(!/\[error\]|Traceback|crashed/.test(log), `the output channel shows errors:\n${log}`);
  await command("View: Hide Panel");
});

step("Refactor menu offers the AI: comment and the presets; review, then Accept applies", async () => {
  await openFile("calc.py");
  await selectLines(6, 9);
  const entries = (await refactorMenu()).join("\n");
  for (const title of ["AI: make the bound inclusive", "Add docstrings", "Fix the bug"]) {
    assert(entries.includes(title), `no "${title}" in the menu:\n${entries}`);
  }
  await shoot("vscode-actions.png");
  await pickAction("AI: make the bound inclusive");
  const review = await reviewShown();
  await sleep(500); // the diff renders
  await shoot("vscode-review.png");
  await assertSaved("calc.py", CALC, "calc.py during the review");
  await review.locator(".monaco-button", { hasText: "Accept" }).click();
  await until("the diff to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
  await save();
  await assertSaved("calc.py", withComment(CALC, 6, { dropLine: "# AI:" }), "calc.py after Accept");
});

step("one undo restores the original", async () => {
  await command("Undo");
  await save();
  await assertSaved("calc.py", CALC, "calc.py after one undo");
});

step("review, then Reject applies nothing and says so once", async () => {
  await clearNotifications();
  await openFile("calc.py");
  await selectLines(1, 3);
  await refactorMenu();
  await pickAction("Add docstrings");
  const review = await reviewShown();
  await review.locator(".monaco-button", { hasText: "Reject" }).click();
  await until("the diff to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
  await toast("rejected in review");
  await sleep(1000);
  const shown = (await toasts()).filter((t) => t.includes("rejected"));
  assertEqual(shown.length, 1, "notifications about the rejection");
  assertEqual(await page.locator(".tab.active.dirty").count(), 0, "dirty editors");
  await assertSaved("calc.py", CALC, "calc.py after Reject");
});

step("closing the review's diff rejects the edit", async () => {
  await clearNotifications();
  await openFile("calc.py");
  await selectLines(1, 3);
  await refactorMenu();
  await pickAction("Simplify");
  await reviewShown();
  await command("View: Close Editor");
  await toast("rejected in review");
  await sleep(1000);
  assertEqual((await toasts()).filter((t) => t.includes("rejected")).length, 1, "notifications about the rejection");
  assertEqual(await page.locator(".monaco-diff-editor").count(), 0, "review diffs after closing");
  assertEqual(await page.locator(".tab.active.dirty").count(), 0, "dirty editors");
  await assertSaved("calc.py", CALC, "calc.py after closing the review");
});

step("the command asks for an instruction; Accept from the diff's title bar", async () => {
  await clearNotifications();
  await openFile("calc.py");
  await selectLines(1, 3);
  await editViaCommand("Add a check");
  await reviewShown();
  await page.locator('.editor-actions a.action-label[aria-label*="Accept the edit"]').first().click();
  await until("the diff to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
  await save();
  await assertSaved("calc.py", withComment(CALC, 1), "calc.py after Accept");
  await command("Undo");
  await save();
  await assertSaved("calc.py", CALC, "calc.py after one undo");
});

step("an update from the clipboard is reviewed as an edit; Accept applies the merge", async () => {
  await clearNotifications();
  await openFile("calc.py");
  await page.evaluate((text) => navigator.clipboard.writeText(text), UPDATE);
  await command("cad-lsp: Apply Update from Clipboard");
  const review = await reviewShown();
  assert((await review.innerText()).includes("apply an update"), `the review does not say what it applies`);
  await sleep(500); // the diff renders
  await shoot("vscode-apply.png");
  await assertSaved("calc.py", CALC, "calc.py during the review");
  await review.locator(".monaco-button", { hasText: "Accept" }).click();
  await until("the diff to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
  await save();
  // The merge, from plain lines: the update's two new lines after line 2, the rest of the file as it was.
  const lines = CALC.split(/(?<=\n)/);
  const merged = [...lines.slice(0, 2), ...UPDATE.split(/(?<=\n)/).slice(2, 4), ...lines.slice(2)].join("");
  await assertSaved("calc.py", merged, "calc.py after Accept");
  await command("Undo");
  await save();
  await assertSaved("calc.py", CALC, "calc.py after one undo");
});

step("a chat answer from the clipboard: two files changed, one created, one review; Reject All, then Accept All", async () => {
  await clearNotifications();
  await openFile("cart.py"); // open: a versioned edit; shop/prices.py is not open: an edit of the file on disk
  await page.evaluate((text) => navigator.clipboard.writeText(text), ANSWER);
  await command("cad-lsp: Apply Chat Answer from Clipboard");
  let review = await answerReviewShown();
  const said = await review.innerText();
  for (const name of ["3 files", "shop/prices.py", "shop/cart.py", "shop/discounts.py (new)"]) {
    assert(said.includes(name), `the question does not say "${name}":\n${said}`);
  }
  await review.locator(".monaco-button", { hasText: "Reject All" }).click();
  await toast("rejected in review");
  await until("the review to close", async () => (await reviewTabs()) === 0, 10000);
  assertEqual(await page.locator(".tab.dirty").count(), 0, "dirty editors after Reject All");
  await assertSaved("shop/cart.py", CART, "shop/cart.py after Reject All");
  await assertSaved("shop/prices.py", PRICES, "shop/prices.py after Reject All");
  assert(!exists("shop/discounts.py"), "shop/discounts.py exists after Reject All");

  await clearNotifications();
  await openFile("cart.py");
  await command("cad-lsp: Apply Chat Answer from Clipboard");
  review = await answerReviewShown();
  await sleep(1000); // the diffs render
  await shoot("vscode-answer.png");
  await assertSaved("shop/cart.py", CART, "shop/cart.py during the review");
  assert(!exists("shop/discounts.py"), "shop/discounts.py exists during the review");
  await review.locator(".monaco-button", { hasText: "Accept All" }).click();
  await until("the review to close", async () => (await reviewTabs()) === 0, 10000);
  await until("the new file", async () => exists("shop/discounts.py"), 10000);
  await command("File: Save All Files");
  await until("every editor saved", async () => (await page.locator(".tab.dirty").count()) === 0);
  // The merges, from plain lines: prices.py gains the check before its return; cart.py the import at its top and
  // the discount on line 7, the rest (cart_size, which the answer elided) as it was.
  const prices = PRICES.split(/(?<=\n)/);
  const check = ANSWER.split(/(?<=\n)/).slice(5, 7);
  await assertSaved("shop/prices.py", [...prices.slice(0, 4), ...check, ...prices.slice(4)].join(""), "shop/prices.py");
  const cart = CART.split(/(?<=\n)/);
  cart[6] = "        total += discounted(item, price_of(item))\n";
  await assertSaved("shop/cart.py", ["from shop.discounts import discounted\n", ...cart].join(""), "shop/cart.py");
  await assertSaved("shop/discounts.py", DISCOUNTS, "shop/discounts.py");
});

step("after Accept All, an Undo in a changed file gives that file back and leaves the others", async () => {
  const prices = disk("shop/prices.py");
  await openFile("cart.py");
  await focusEditor();
  await command("Undo");
  await sleep(500);
  await shoot("vscode-answer-undo.png");
  await save();
  await assertSaved("shop/cart.py", CART, "shop/cart.py after one undo");
  assertEqual(disk("shop/prices.py"), prices, "shop/prices.py after the undo in shop/cart.py");
  assert(exists("shop/discounts.py"), "shop/discounts.py is gone after the undo in shop/cart.py");
  await openFile("prices.py");
  await focusEditor();
  await command("Undo");
  await save();
  await assertSaved("shop/prices.py", PRICES, "shop/prices.py after one undo");
});

step("progress is shown as a notification; Cancel stops the edit and applies nothing", async () => {
  await clearNotifications();
  await openFile("calc.py");
  await selectLines(1, 3);
  await editViaCommand("Add a check slowly");
  const progress = await toast("Add a check slowly", 30000);
  await sleep(1500); // a few progress reports
  await shoot("vscode-progress.png");
  await progress.locator(".monaco-button", { hasText: "Cancel" }).click();
  await toast("cancelled; nothing applied");
  await sleep(1000);
  assertEqual(await page.locator(".monaco-diff-editor").count(), 0, "review diffs after Cancel");
  assertEqual(await page.locator(".tab.active.dirty").count(), 0, "dirty editors");
  await assertSaved("calc.py", CALC, "calc.py after Cancel");
});

step("typing during the edit: the stale edit applies nothing and says so once", async () => {
  await clearNotifications();
  await openFile("calc.py");
  await selectLines(1, 3);
  await editViaCommand("Add a check slowly");
  await toast("Add a check slowly", 30000);
  await focusEditor();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("x");
  await toast("changed during the edit", 60000);
  await sleep(1500);
  const shown = (await toasts()).filter((t) => t.includes("nothing applied"));
  assertEqual(shown.length, 1, "notifications about the stale edit");
  assertEqual(await page.locator(".monaco-diff-editor").count(), 0, "review diffs for a stale edit");
  await command("Undo");
  await save();
  await assertSaved("calc.py", CALC, "calc.py after undoing the typing");
});

step("typing during the review: Accept applies nothing and says so once", async () => {
  await clearNotifications();
  await openFile("calc.py");
  await selectLines(1, 3);
  await editViaCommand("Add a check");
  const review = await reviewShown();
  await openFile("calc.py"); // the file's own tab
  await focusEditor();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("x");
  await review.locator(".monaco-button", { hasText: "Accept" }).click();
  await toast("changed during the review");
  await sleep(1000);
  const shown = (await toasts()).filter((t) => t.includes("changed during the review"));
  assertEqual(shown.length, 1, "notifications about the changed document");
  assertEqual(await page.locator(".monaco-diff-editor").count(), 0, "review diffs after Accept");
  await save();
  await assertSaved("calc.py", CALC + "x", "calc.py: only the typing");
  await command("Undo");
  await save();
  await assertSaved("calc.py", CALC, "calc.py after undoing the typing");
});

step("an all-CRLF file with emoji: byte-exact outside the edit", async () => {
  await clearNotifications();
  await openFile("greet.py");
  await selectLines(6, 7);
  await editViaCommand("Add a check");
  const review = await reviewShown();
  await review.locator(".monaco-button", { hasText: "Accept" }).click();
  await until("the diff to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
  await save();
  const expected = withComment(GREET, 6);
  await saved("greet.py", expected); // the tab turns clean before the write has landed
  assert(Buffer.from(expected).equals(fs.readFileSync(path.join(WORKSPACE, "greet.py"))),
    `greet.py bytes differ:\n${JSON.stringify(disk("greet.py"))}\nexpected\n${JSON.stringify(expected)}`);
});

step('"cadLsp.review": false applies the edit at once, as one undo step', async () => {
  const file = path.join(WORKSPACE, ".vscode", "settings.json");
  fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, "utf8")), "cadLsp.review": false }));
  await clearNotifications();
  await openFile("calc.py");
  await sleep(3000); // the extension restarts the server with the new setting
  await selectLines(1, 3);
  await until("the restarted server", async () => {
    await command("cad-lsp: AI edit selection");
    await sleep(1000);
    if (!(await toasts()).some((t) => t.includes("not running"))) return true;
    await clearNotifications();
  }, 30000);
  await page.locator(".quick-input-widget input").fill("Add a check");
  await page.keyboard.press("Enter");
  await until("the edit", async () => (await page.locator(".tab.active.dirty").count()) > 0 || disk("calc.py") !== CALC, 60000);
  assertEqual(await page.locator(".monaco-diff-editor").count(), 0, "review diffs with review off");
  await save();
  await assertSaved("calc.py", withComment(CALC, 1), "calc.py after the edit");
  await command("Undo");
  await save();
  await assertSaved("calc.py", CALC, "calc.py after one undo");
});

step("an update whose merge removes lines it did not show: the review warns and names them", async () => {
  // The server again, its merges now reporting calc.py's lines 2-3 removed unseen (tests/unseen.py), its applies
  // landing as the merge; the review back on.
  const file = path.join(WORKSPACE, ".vscode", "settings.json");
  const { "cadLsp.review": _, ...settings } = JSON.parse(fs.readFileSync(file, "utf8"));
  const modelArgs = settings["cadLsp.serverArgs"].slice(2); // after -m bench.scripted
  settings["cadLsp.serverArgs"] = ["-m", "tests.unseen", "2-3", "--scripted", ...modelArgs];
  fs.writeFileSync(file, JSON.stringify(settings));
  await clearNotifications();
  await openFile("calc.py");
  await sleep(3000); // the extension restarts the server with the new settings
  await page.evaluate((text) => navigator.clipboard.writeText(text), UPDATE);
  await until("the restarted server", async () => {
    await command("cad-lsp: Apply Update from Clipboard");
    await sleep(1000);
    if (!(await toasts()).some((t) => t.includes("not running"))) return true;
    await clearNotifications();
  }, 30000);
  const review = await reviewShown();
  const said = await review.innerText();
  assert(said.includes("the update did not show (file lines 2-3)"), `the review does not name the lines:\n${said}`);
  assert((await review.locator(".codicon-warning").count()) > 0, "the review's question is not a warning");
  await shoot("vscode-apply-unseen.png");
  await review.locator(".monaco-button", { hasText: "Reject" }).click();
  await until("the diff to close", async () => (await page.locator(".monaco-diff-editor").count()) === 0);
  await assertSaved("calc.py", CALC, "calc.py after Reject");
});

step("the output channel reads cleanly after all of the above", async () => {
  // VS Code keeps each output channel in a log file under the user-data folder: all of it, not the lines on screen.
  const logs = fs.readdirSync(path.join(process.env.USER_DATA, "logs"), { recursive: true })
    .filter((name) => path.basename(name).endsWith("cad-lsp.log"));
  assertEqual(logs.length, 1, "cad-lsp output channel logs");
  const log = fs.readFileSync(path.join(process.env.USER_DATA, "logs", logs[0]), "utf8");
  assert(/loaded in/.test(log) && /edited lines/.test(log), `the log lacks the model load or an edit:\n${log}`);
  const noise = log.split("\n").filter((line) => /\[error\]|Traceback|unknown message id|crashed/i.test(line));
  assert(noise.length === 0, `the output channel shows:\n${noise.join("\n")}`);
});

// ---------------------------------------------------------------------------------------------

async function main() {
  writeWorkspace();
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  let passed = 0;
  let failed = 0;
  try {
    page = await browser.newPage({ viewport: { width: 1100, height: 540 } });
    // The extension reads the clipboard through the browser's (vscode.env.clipboard), as in any VS Code for the web.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: URL });
    await page.goto(`${URL}/?folder=${encodeURIComponent(WORKSPACE)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
    await page.locator(".statusbar").waitFor();
    await sleep(3000); // extensions activate
    await page.keyboard.press("Control+B"); // no side bar: room for a side-by-side diff
    for (const { name, fn } of steps.filter((s) => !process.env.STEPS || new RegExp(process.env.STEPS).test(s.name))) {
      const t0 = Date.now();
      try {
        await fn();
        passed++;
        console.log(`vscode-e2e: ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (error) {
        failed++;
        console.log(`vscode-e2e: FAIL ${name}: ${error.message}`);
        if (process.env.FAILURES) {
          await page.screenshot({ path: path.join(process.env.FAILURES, `fail-${passed + failed}.png`) });
        }
        await page.keyboard.press("Escape").catch(() => {});
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`vscode-e2e: ${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

await main();
