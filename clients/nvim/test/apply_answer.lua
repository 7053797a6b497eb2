-- Headless end-to-end check of :CadApplyAnswer against a real server.
--
--   CAD_LSP_CMD='["python","-m","cad_lsp","serve"]' CAD_ROOT=project CAD_OPEN=shop/cart.py \
--   CAD_ANSWER=answer.md CAD_NAMES='["shop/cart.py","shop/new.py"]' CAD_REPORT=report.json \
--     nvim --headless --clean -l clients/nvim/test/apply_answer.lua
--
-- CAD_ROOT is the project (it gets a .git folder, the plugin's root marker); CAD_OPEN, a file in it, is
-- opened, the other files the answer names (CAD_NAMES, from the root) are not. The answer (CAD_ANSWER's text) goes to register a and
-- :CadApplyAnswer a runs twice: the first question for all the files is answered Reject all, the second
-- Apply all; then one :undo and :redo in each changed buffer, and :wall. CAD_REPORT gets, as JSON, each run's reply, quickfix list and the texts of the
-- buffers and files the answer names (after the Reject and after the Apply, before :wall), every question
-- asked and the notifications. Exits 0 when both runs got a reply.

local TIMEOUT_MS = 120000

local function all_clients()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  return get({ name = "cad_lsp", _uninitialized = true })
end

local function stop_clients()
  for _, client in ipairs(all_clients()) do
    vim.lsp.stop_client(client.id)
  end
  vim.wait(5000, function()
    return #all_clients() == 0
  end, 50)
end

local log_path = vim.lsp.log.get_filename()
local log_start = math.max(vim.fn.getfsize(log_path), 0)

local function fail(message)
  io.stderr:write("apply_answer.lua: " .. message .. "\n")
  local log = io.open(log_path, "rb")
  if log then
    log:seek("set", log_start)
    local added = log:read("*a") or ""
    log:close()
    if added ~= "" then
      io.stderr:write(("LSP log (%s) of this run:\n%s\n"):format(log_path, added))
    end
  end
  stop_clients()
  os.exit(1)
end

local function env(name)
  local value = os.getenv(name)
  if value == nil or value == "" then
    fail(name .. " is not set")
  end
  return value
end

local function read(path)
  local file = io.open(path, "rb")
  if not file then
    return vim.NIL
  end
  local text = file:read("*a")
  file:close()
  return text
end

local script = debug.getinfo(1, "S").source:sub(2)
vim.opt.runtimepath:prepend(vim.fn.fnamemodify(script, ":p:h:h"))

local cmd = vim.json.decode(env("CAD_LSP_CMD"))
local root = vim.fn.fnamemodify(env("CAD_ROOT"), ":p"):gsub("/$", "")
local answer = read(env("CAD_ANSWER"))
if answer == vim.NIL then
  fail("cannot read CAD_ANSWER")
end
vim.fn.mkdir(root .. "/.git", "p")

-- Every question is recorded; the answer's own question is answered from `choices` (2: Reject all,
-- 1: Apply all), any other Yes.
local questions, notifications, choices = {}, {}, { 2, 1 }
vim.fn.confirm = function(message)
  table.insert(questions, message)
  if message:find("^cad%-lsp: apply the chat answer") then
    return table.remove(choices, 1) or 2
  end
  return 1
end
local notify = vim.notify
vim.notify = function(message, level, opts)
  table.insert(notifications, message)
  return notify(message, level, opts)
end

local cad = require("cad_lsp")
cad.setup({ cmd = cmd })

vim.cmd("filetype on")
vim.cmd.edit(vim.fn.fnameescape(root .. "/" .. env("CAD_OPEN")))
local bufnr = vim.api.nvim_get_current_buf()

local seen = false
local ready = vim.wait(TIMEOUT_MS, function()
  if #all_clients() > 0 then
    seen = true
  elseif seen then
    return true
  end
  local client = cad.get_client(bufnr)
  return client ~= nil and client.initialized == true
end, 100)
local client = cad.get_client(bufnr)
if not (ready and client and client.initialized) then
  fail(seen and "the server exited during startup" or "timed out waiting for the server to start")
end

-- The files the answer names, by path relative to the root: the buffer's text where Neovim has one loaded,
-- and the file's bytes on disk.
local names = vim.json.decode(env("CAD_NAMES"))
local function texts()
  local out = {}
  for _, name in ipairs(names) do
    local path = root .. "/" .. name
    local buf = vim.fn.bufnr(path)
    local text = vim.NIL
    if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
      local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, true)
      text = table.concat(lines, "\n") .. (vim.bo[buf].eol and "\n" or "")
    end
    out[name] = { buffer = text, disk = read(path) }
  end
  return out
end

local function quickfix()
  local out = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    local name = vim.api.nvim_buf_get_name(item.bufnr)
    table.insert(out, { path = name:sub(#root + 2), lnum = item.lnum, text = item.text })
  end
  return out
end

vim.fn.setreg("a", answer)
local apply_answer, runs = cad.apply_answer, {}
cad.apply_answer = function(buf, text, on_done, opts)
  local run = {}
  table.insert(runs, run)
  apply_answer(buf, text, function(e, r)
    run.err, run.result = e, r
    on_done(e, r)
  end, opts)
end

for i = 1, 2 do
  vim.fn.setqflist({}, "r", { items = {} })
  vim.cmd("CadApplyAnswer a")
  if not vim.wait(TIMEOUT_MS, function()
    return (runs[i] and (runs[i].err or runs[i].result)) ~= nil or cad.get_client(bufnr) == nil
  end, 100) or not runs[i] or (runs[i].err == nil and runs[i].result == nil) then
    fail(("no reply to :CadApplyAnswer (run %d)"):format(i))
  end
  runs[i].quickfix = quickfix()
  runs[i].files = texts()
  vim.cmd("cclose")
end

-- One undo step per file: each changed buffer's :undo gives back its text before the answer, :redo the answer's.
local undone = {}
for _, name in ipairs(names) do
  local buf = vim.fn.bufnr(root .. "/" .. name)
  if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) then
    local function text()
      return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, true), "\n") .. (vim.bo[buf].eol and "\n" or "")
    end
    vim.api.nvim_buf_call(buf, function()
      vim.cmd("silent undo")
    end)
    local before = text()
    vim.api.nvim_buf_call(buf, function()
      vim.cmd("silent redo")
    end)
    undone[name] = { undo = before, redo = text() }
  end
end

vim.cmd("silent wall")
vim.wait(200) -- notifications scheduled by the replies
local report = io.open(env("CAD_REPORT"), "wb")
report:write(vim.json.encode({ runs = runs, questions = questions, notifications = notifications, written = texts(),
  undone = undone }))
report:close()
stop_clients()
os.exit(0)
