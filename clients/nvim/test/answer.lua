-- Headless unit checks of :CadApplyAnswer's parts, with a stand-in client (no server):
--
--   nvim --headless --clean -l clients/nvim/test/answer.lua
--
-- The answer's edit fills the quickfix list with its files; one question decides for all of them; Reject
-- answers applied=false and applies nothing; Accept hands the edit to Neovim's own handler; the command's
-- argument holds the answer, the buffer's uri and version, and partial for :CadApplyAnswer!. Exits 0 on success.

vim.opt.runtimepath:prepend(vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h"))
local cad = require("cad_lsp")

local failures = 0
local function check(ok, what)
  if not ok then
    failures = failures + 1
    io.stderr:write("answer.lua: failed: " .. what .. "\n")
  end
end

local root = vim.fn.tempname()
vim.fn.mkdir(root, "p")
local a, c = root .. "/a.py", root .. "/c.py"
local edit = {
  changeAnnotations = { ["cad-lsp.answer"] = { label = "cad-lsp: apply a chat answer", needsConfirmation = true } },
  documentChanges = {
    {
      textDocument = { uri = vim.uri_from_fname(a), version = vim.NIL },
      edits = { { range = { start = { line = 2, character = 4 }, ["end"] = { line = 2, character = 5 } }, newText = "2" } },
    },
    { kind = "create", uri = vim.uri_from_fname(c) },
    {
      textDocument = { uri = vim.uri_from_fname(c), version = vim.NIL },
      edits = { { range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 0 } }, newText = "c = 1\n" } },
    },
  },
}

local items = cad.answer_items(edit)
check(#items == 2, "one quickfix item per file")
check(items[1].filename == a and items[1].lnum == 3 and items[1].col == 5, "the item is at the file's first change")
check(items[1].text == "cad-lsp: 1 change" and items[2].text == "cad-lsp: new file", "the items say what changes")

-- A stand-in client: the command's request is answered after the "server" sends its edit.
local buf = vim.api.nvim_create_buf(true, false)
vim.api.nvim_buf_set_name(buf, root .. "/main.py")
local sent, asked, delegated, reply
local fake = {
  name = cad.name,
  offset_encoding = "utf-16",
  handlers = {},
  server_capabilities = { executeCommandProvider = { commands = { cad.answer_command } } },
}
local function request(_, method, params, handler)
  sent = { method = method, params = params }
  reply = fake.handlers["workspace/applyEdit"](nil, { label = cad.answer_label, edit = edit }, {}, {})
  handler(nil, { applied = reply.applied, message = "done" })
  return true
end
fake.request = request
cad.get_client = function()
  return fake
end
local original = vim.lsp.handlers["workspace/applyEdit"]
vim.lsp.handlers["workspace/applyEdit"] = function(_, params)
  delegated = params
  return { applied = true }
end

local result
cad.apply_answer(buf, "```python a.py\nx = 2\n```\n", function(err, r)
  result = { err = err, reply = r }
end, {
  confirm = function(shown)
    asked = shown
    return false
  end,
})
check(sent.method == "workspace/executeCommand" and sent.params.command == "cad.applyAnswer", "the command is sent")
local argument = sent.params.arguments[1]
check(argument.text == "```python a.py\nx = 2\n```\n" and argument.uri == vim.uri_from_bufnr(buf), "the argument")
check(argument.partial == nil, "not partial unless asked")
check(asked and #asked == 2, "one question for every file")
check(#vim.fn.getqflist() == 2 and vim.fn.getqflist({ title = 1 }).title == cad.answer_label, "the quickfix list")
check(reply.applied == false and reply.failureReason == "rejected in review" and delegated == nil, "rejected")
check(result and result.err == nil and fake.handlers["workspace/applyEdit"] == nil, "the handler is restored")

cad.apply_answer(buf, "answer", function() end, {
  partial = true,
  confirm = function()
    return true
  end,
})
check(sent.params.arguments[1].partial == true, "partial is sent")
check(delegated and delegated.edit == edit and reply.applied == true, "accepted: Neovim's own handler applies it")
check(edit.changeAnnotations["cad-lsp.answer"].needsConfirmation == false, "accepted: Neovim asks no more")
local created = edit.documentChanges[3].edits[1].range
check(created.start.line == 0 and created["end"].line == 1 and created["end"].character == 0,
  "a new file's text replaces the empty buffer's one line")
check(edit.documentChanges[1].edits[1].range["end"].line == 2, "an existing file's edit is as sent")
check(vim.json.encode(cad.init_options({})) == "{}", "no option set: initialization options are an object")

vim.lsp.handlers["workspace/applyEdit"] = original

if failures > 0 then
  os.exit(1)
end
print("answer.lua: ok")
os.exit(0)
