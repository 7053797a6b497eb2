-- Headless end-to-end check of the Neovim client against a real server.
--
--   CAD_LSP_CMD='["python","-m","cad_lsp","serve"]' CAD_INPUT=a.py CAD_LINES=2-4 \
--   CAD_INSTRUCTION='add a docstring' CAD_OUTPUT=out.py \
--   [CAD_UPDATE=update.py CAD_APPLY_OUTPUT=applied.py] [CAD_REPORT=report.json] \
--     nvim --headless --clean -l clients/nvim/test/edit.lua
--
-- Opens CAD_INPUT, has the server edit lines CAD_LINES (1-based, inclusive),
-- and writes the resulting buffer to CAD_OUTPUT. With CAD_UPDATE, then puts
-- that file's text on the clipboard (a provider of this script's own, as after
-- copying the update from a chat), runs :CadApply (which reads the clipboard by
-- default) and writes the buffer to CAD_APPLY_OUTPUT. Neovim's "Apply all changes?"
-- (each edit asks for confirmation) is answered Yes and recorded; CAD_REPORT
-- gets the questions, the notifications and those among them that warn as
-- JSON. Exits 0 on success.

local TIMEOUT_MS = 120000

-- All cad-lsp clients, started or not. `_uninitialized` makes Neovim 0.11+
-- list clients still starting up; older versions list them anyway.
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

-- Neovim logs the server's stderr to its LSP log; what this run added to it
-- is shown on failure.
local log_path = vim.lsp.log.get_filename()
local log_start = math.max(vim.fn.getfsize(log_path), 0)

local function fail(message)
  io.stderr:write("edit.lua: " .. message .. "\n")
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

-- The plugin lives two directories above this script.
local script = debug.getinfo(1, "S").source:sub(2)
local plugin_dir = vim.fn.fnamemodify(script, ":p:h:h")
vim.opt.runtimepath:prepend(plugin_dir)

local ok, cmd = pcall(vim.json.decode, env("CAD_LSP_CMD"))
if not ok or type(cmd) ~= "table" or #cmd == 0 then
  fail("CAD_LSP_CMD must be a non-empty JSON array of strings")
end
if vim.fn.executable(cmd[1]) ~= 1 then
  fail(("server command not found or not executable: %s"):format(cmd[1]))
end
local input = env("CAD_INPUT")
local line1, line2 = env("CAD_LINES"):match("^(%d+)-(%d+)$")
if not line1 then
  fail("CAD_LINES must look like 3-7")
end
line1, line2 = tonumber(line1), tonumber(line2)
local instruction = env("CAD_INSTRUCTION")
local output = env("CAD_OUTPUT")
if vim.fn.filereadable(input) ~= 1 then
  fail("cannot read CAD_INPUT " .. input)
end

-- A clipboard in this process (headless Neovim finds none): "+" and "*" hold
-- what was copied last.
local clipboard = { {}, "v" }
local function copy(lines, regtype)
  clipboard = { lines, regtype }
end
local function paste()
  return clipboard
end
vim.g.clipboard = { name = "edit.lua", copy = { ["+"] = copy, ["*"] = copy }, paste = { ["+"] = paste, ["*"] = paste } }

-- Neovim asks with vim.fn.confirm before it applies an edit that needs
-- confirmation; headless, the question is recorded and answered Yes.
local questions, notifications, warnings = {}, {}, {}
vim.fn.confirm = function(message)
  table.insert(questions, message)
  return 1
end
local notify = vim.notify
vim.notify = function(message, level, opts)
  table.insert(notifications, message)
  if level and level >= vim.log.levels.WARN then
    table.insert(warnings, message)
  end
  return notify(message, level, opts)
end

local cad = require("cad_lsp")
cad.setup({ cmd = cmd, needs_confirmation = true })

-- `nvim -l` skips the startup step that turns on filetype detection, and the
-- client starts on FileType.
vim.cmd("filetype on")
vim.cmd.edit(vim.fn.fnameescape(input))
local bufnr = vim.api.nvim_get_current_buf()
if vim.bo[bufnr].filetype == "" then
  vim.bo[bufnr].filetype = "text"
end
if line1 < 1 or line2 < line1 or line2 > vim.api.nvim_buf_line_count(bufnr) then
  fail(("CAD_LINES %d-%d is outside the file's %d lines"):format(line1, line2, vim.api.nvim_buf_line_count(bufnr)))
end

-- Wait for the server to start and initialize, or for it to exit early.
local seen = false
local ready = vim.wait(TIMEOUT_MS, function()
  if #all_clients() > 0 then
    seen = true
  elseif seen then
    return true -- the client was there and is gone: the server exited
  end
  local client = cad.get_client(bufnr)
  return client ~= nil and client.initialized == true
end, 100)
local client = cad.get_client(bufnr)
if not (ready and client and client.initialized) then
  fail(seen and "the server exited during startup" or "timed out waiting for the server to start")
end

local done, err, result = false, nil, nil
cad.edit(bufnr, line1, line2, instruction, function(e, r)
  done, err, result = true, e, r
end)
if not vim.wait(TIMEOUT_MS, function()
  return done or cad.get_client(bufnr) == nil
end, 100) then
  fail("timed out waiting for the edit")
end
if not done then
  fail("the server exited during the edit")
end
if err then
  fail("edit failed: " .. tostring(err))
end
if type(result) ~= "table" or not result.applied then
  fail("edit not applied: " .. vim.inspect(result))
end

local function write(path, text)
  local file = io.open(path, "wb")
  if not file then
    fail("cannot write " .. path)
  end
  file:write(text)
  file:close()
end

local function buffer_text()
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, true)
  return table.concat(lines, "\n") .. (vim.bo[bufnr].eol and "\n" or "")
end

write(output, buffer_text())
io.stdout:write(("edit.lua: %s\n"):format(result.message or "edit applied"))

local update_path = os.getenv("CAD_UPDATE")
if update_path and update_path ~= "" then
  local file = io.open(update_path, "rb")
  if not file then
    fail("cannot read CAD_UPDATE " .. update_path)
  end
  vim.fn.setreg("+", file:read("*a"))
  file:close()
  vim.fn.setreg("x", "")
  vim.cmd("CadApply x") -- an empty register: said, and nothing sent
  -- :CadApply hands its reply to the user; here it is also kept.
  local apply, sent, applied = cad.apply, false, nil
  cad.apply = function(buf, update, instruction, on_done)
    sent = true
    apply(buf, update, instruction, function(e, r)
      applied = { err = e, result = r }
      on_done(e, r)
    end)
  end
  vim.cmd("CadApply")
  if not sent then
    fail(":CadApply sent nothing")
  end
  if not vim.wait(TIMEOUT_MS, function()
    return applied ~= nil or cad.get_client(bufnr) == nil
  end, 100) or applied == nil then
    fail("no reply to :CadApply")
  end
  if applied.err or type(applied.result) ~= "table" or not applied.result.applied then
    fail("update not applied: " .. vim.inspect(applied))
  end
  write(env("CAD_APPLY_OUTPUT"), buffer_text())
  io.stdout:write(("edit.lua: %s\n"):format(applied.result.message))
end

local report = os.getenv("CAD_REPORT")
if report and report ~= "" then
  vim.wait(200) -- notifications scheduled by the replies
  write(report, vim.json.encode({ questions = questions, notifications = notifications, warnings = warnings }))
end
stop_clients()
os.exit(0)
