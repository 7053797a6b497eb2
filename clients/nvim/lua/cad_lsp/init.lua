-- Neovim client for the cad-lsp language server.
--
--   require("cad_lsp").setup({ model = "...", needs_confirmation = false })
--
-- Starts `cad-lsp serve` for buffers of the given filetypes (all by default)
-- and defines :CadEdit, which asks the server to rewrite a range of lines, and
-- :CadApply, which has it merge a chat model's update snippet from a register
-- (:CadApply! even when the merge leaves the buffer unparsable), and
-- :CadApplyAnswer, which applies a whole chat answer from a register to every
-- file it names, after one question for all of them.

local M = {}

M.name = "cad_lsp"
M.command = "cad.editSelection"
M.apply_command = "cad.applyUpdate"
M.answer_command = "cad.applyAnswer"
M.answer_label = "cad-lsp: apply a chat answer" -- the label of the server's one edit for an answer

local defaults = {
  cmd = { "cad-lsp", "serve" },
  filetypes = nil, -- nil: every filetype
  root_markers = { ".git" },
}

--- The server's initializationOptions, in its camelCase; unset options are
--- left out so that the server applies its own defaults.
function M.init_options(opts)
  local init = {
    model = opts.model,
    device = opts.device,
    dtype = opts.dtype,
    backend = opts.backend,
    vllmUrl = opts.vllm_url,
    maxTokens = opts.max_tokens,
    maxDocuments = opts.max_documents,
    contextLines = opts.context_lines,
    speculation = opts.speculation,
    needsConfirmation = opts.needs_confirmation,
  }
  for key, value in pairs(init) do
    if value == "" then
      init[key] = nil
    end
  end
  if next(init) == nil then
    return vim.empty_dict() -- sent as {}: an empty Lua table would go as [], which the server refuses
  end
  return init
end

--- Length of `line` in the code units of `encoding` ("utf-8", "utf-16" or
--- "utf-32"). Counted by hand because vim.str_utfindex changed signature in 0.11.
function M.line_length(line, encoding)
  if encoding == "utf-8" then
    return #line
  end
  local units = 0
  for i = 1, #line do
    local byte = line:byte(i)
    if byte < 0x80 or byte >= 0xC0 then -- first byte of a code point
      -- Code points above U+FFFF (4-byte UTF-8) take two UTF-16 units.
      units = units + ((encoding ~= "utf-32" and byte >= 0xF0) and 2 or 1)
    end
  end
  return units
end

--- LSP range covering lines line1..line2 (1-based, inclusive). It ends at the
--- start of the next line, or at the end of the last line when there is none.
function M.line_range(bufnr, line1, line2, encoding)
  local range = {
    start = { line = line1 - 1, character = 0 },
    ["end"] = { line = line2, character = 0 },
  }
  if line2 >= vim.api.nvim_buf_line_count(bufnr) then
    local last = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, true)[1]
    range["end"] = { line = line2 - 1, character = M.line_length(last, encoding or "utf-16") }
  end
  return range
end

--- The cad-lsp client attached to `bufnr`, if any.
function M.get_client(bufnr)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients -- renamed in 0.10
  return get({ bufnr = bufnr, name = M.name })[1]
end

local function supports_command(client, command)
  local provider = client.server_capabilities and client.server_capabilities.executeCommandProvider
  return type(provider) == "table" and vim.tbl_contains(provider.commands or {}, command)
end

--- Sends `command` for `bufnr` with one argument: `argument(client, bufnr)`
--- plus the buffer's uri and version. `on_done(err, result)` as for M.edit.
local function execute(bufnr, command, argument, on_done)
  on_done = on_done or function() end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.get_client(bufnr)
  if not client then
    return on_done("cad-lsp is not attached to this buffer")
  end
  if not supports_command(client, command) then
    -- Checked here because client:exec_cmd would only warn and never call back.
    return on_done(("the server does not offer the command %s"):format(command))
  end
  local params = {
    command = command,
    arguments = {
      vim.tbl_extend("force", argument(client, bufnr), {
        uri = vim.uri_from_bufnr(bufnr),
        version = vim.lsp.util.buf_versions[bufnr] or vim.b[bufnr].changedtick,
      }),
    },
  }
  local function handler(err, result)
    if err then
      on_done(err.message or vim.inspect(err))
    else
      on_done(nil, result)
    end
  end
  -- client:request (0.11+) and client.request (older) both flush pending
  -- changes first, so the version sent matches the server's copy.
  local ok
  if vim.fn.has("nvim-0.11") == 1 then
    ok = client:request("workspace/executeCommand", params, handler, bufnr)
  else
    ok = client.request("workspace/executeCommand", params, handler, bufnr)
  end
  if not ok then
    on_done("cad-lsp is not running")
  end
end

--- Asks the server to rewrite lines line1..line2 (1-based) of `bufnr` following
--- `instruction`. The server applies the edit itself (workspace/applyEdit)
--- before it replies. `on_done(err, result)` gets an error message, or the
--- reply `{ applied = boolean, message = string }`.
function M.edit(bufnr, line1, line2, instruction, on_done)
  execute(bufnr, M.command, function(client, buf)
    return { range = M.line_range(buf, line1, line2, client.offset_encoding), instruction = instruction }
  end, on_done)
end

--- Asks the server to merge `update` (changed code, unchanged stretches elided
--- by a comment such as `# ... existing code ...`) into `bufnr`; the server
--- finds the lines it changes and applies the edit as for M.edit, with the same
--- confirmation, which then also names any file lines the merge removes that
--- the update did not show (the reply lists them as `removedUnseen`).
--- `instruction` (optional) says what the update is for; `force` applies a
--- merge that leaves a buffer which parsed unparsable (refused otherwise).
function M.apply(bufnr, update, instruction, on_done, force)
  execute(bufnr, M.apply_command, function()
    return { update = update, instruction = instruction, force = force or nil }
  end, on_done)
end

--- The register :CadApply reads without an argument: the clipboard ("+") when
--- Neovim has a clipboard provider, else the unnamed register.
function M.default_register()
  return vim.fn.has("clipboard") == 1 and "+" or '"'
end

--- The quickfix items of an answer's WorkspaceEdit: one per file, at its first
--- change; a file the edit creates says so.
function M.answer_items(edit)
  local items, created = {}, {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "create" then
      created[change.uri] = true
    elseif change.textDocument then
      local uri = change.textDocument.uri
      local count = #(change.edits or {})
      local first = change.edits and change.edits[1]
      table.insert(items, {
        filename = vim.uri_to_fname(uri),
        lnum = first and first.range.start.line + 1 or 1,
        col = first and first.range.start.character + 1 or 1,
        text = created[uri] and "cad-lsp: new file"
          or ("cad-lsp: %d change%s"):format(count, count == 1 and "" or "s"),
      })
    end
  end
  return items
end

--- A file the edit creates is an empty buffer in Neovim, one empty line: the
--- text inserted at its start would keep that line after its own last line
--- break (one blank line too many on :write). Each edit of a created file
--- that inserts at its start is made to end on line 1 instead, past the end,
--- which Neovim reads as replacing that line too.
function M.fix_created_files(edit)
  local created = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == "create" then
      created[change.uri] = true
    elseif change.textDocument and created[change.textDocument.uri] then
      for _, e in ipairs(change.edits or {}) do
        local start, stop = e.range.start, e.range["end"]
        if start.line == 0 and start.character == 0 and stop.line == 0 and stop.character == 0 then
          e.range = { start = start, ["end"] = { line = 1, character = 0 } }
        end
      end
    end
  end
  return edit
end

--- Asks once for all the files of an answer (listed in the quickfix list,
--- opened for the question): true to apply them all.
function M.confirm_answer(items)
  vim.cmd("botright copen")
  local question = ("cad-lsp: apply the chat answer to %d file%s (the quickfix list)?"):format(
    #items,
    #items == 1 and "" or "s"
  )
  return vim.fn.confirm(question, "&Apply all\n&Reject all", 2) == 1
end

--- Asks the server to apply `text`, a whole chat answer, to every file it
--- names; blocks that name no file go to `bufnr`. The server sends one edit for
--- all of them: its files fill the quickfix list and `opts.confirm(items)`
--- (default M.confirm_answer) decides for all of them at once. `opts.partial`
--- applies the files that merged when some blocks did not (all or nothing
--- otherwise); `opts.force` as for M.apply. `on_done(err, result)` gets the
--- reply `{ applied, message, files, unplaced }`.
function M.apply_answer(bufnr, text, on_done, opts)
  opts = opts or {}
  on_done = on_done or function() end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.get_client(bufnr)
  if not client then
    return on_done("cad-lsp is not attached to this buffer")
  end
  local confirm = opts.confirm or M.confirm_answer
  local previous = client.handlers["workspace/applyEdit"]
  client.handlers["workspace/applyEdit"] = function(err, params, ctx, config)
    if params and params.label == M.answer_label then
      local items = M.answer_items(params.edit)
      vim.fn.setqflist({}, " ", { title = M.answer_label, items = items })
      if not confirm(items) then
        return { applied = false, failureReason = "rejected in review" }
      end
      M.fix_created_files(params.edit)
      -- Decided for every file at once: Neovim's own handler must not ask again, file by file.
      for _, annotation in pairs(params.edit.changeAnnotations or {}) do
        annotation.needsConfirmation = false
      end
    end
    return (previous or vim.lsp.handlers["workspace/applyEdit"])(err, params, ctx, config)
  end
  execute(bufnr, M.answer_command, function()
    return { text = text, partial = opts.partial or nil, force = opts.force or nil }
  end, function(err, result)
    client.handlers["workspace/applyEdit"] = previous
    on_done(err, result)
  end)
end

local function notify_result(err, result)
  if err then
    vim.notify("cad-lsp: " .. tostring(err), vim.log.levels.ERROR)
  elseif type(result) ~= "table" then
    vim.notify("cad-lsp: unexpected reply " .. vim.inspect(result), vim.log.levels.ERROR)
  elseif result.applied == false and type(result.message) == "string" and result.message ~= "" then
    return -- the server has shown its reason with window/showMessage already
  else
    local message = result.message or (result.applied and "edit applied" or "edit not applied")
    -- an update that removed lines it did not show is a warning: the message names them
    local unseen = type(result.removedUnseen) == "table" and #result.removedUnseen > 0
    vim.notify("cad-lsp: " .. message, (result.applied and not unseen) and vim.log.levels.INFO or vim.log.levels.WARN)
  end
end

local function run_edit(bufnr, line1, line2, instruction)
  if instruction == nil or vim.trim(instruction) == "" then
    return -- Prompt cancelled or left empty.
  end
  M.edit(bufnr, line1, line2, vim.trim(instruction), vim.schedule_wrap(notify_result))
end

local function find_root(bufnr, markers)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local found = vim.fs.find(markers, { upward = true, path = vim.fs.dirname(path) })[1]
  return vim.fs.dirname(found or path)
end

function M.setup(opts)
  opts = vim.tbl_extend("force", defaults, opts or {})
  local config = {
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    root_markers = opts.root_markers,
    init_options = M.init_options(opts),
  }

  if vim.lsp.config and vim.lsp.enable then -- Neovim 0.11+
    vim.lsp.config(M.name, config)
    vim.lsp.enable(M.name)
  else
    vim.api.nvim_create_autocmd("FileType", {
      group = vim.api.nvim_create_augroup("cad_lsp", { clear = true }),
      pattern = opts.filetypes or "*",
      callback = function(args)
        if vim.bo[args.buf].buftype ~= "" then
          return
        end
        vim.lsp.start({
          name = M.name,
          cmd = config.cmd,
          root_dir = find_root(args.buf, config.root_markers),
          init_options = config.init_options,
        }, { bufnr = args.buf })
      end,
    })
  end

  vim.api.nvim_create_user_command("CadEdit", function(cmd)
    local bufnr = vim.api.nvim_get_current_buf()
    if cmd.args ~= "" then
      run_edit(bufnr, cmd.line1, cmd.line2, cmd.args)
    else
      vim.ui.input({ prompt = "cad-lsp instruction: " }, function(input)
        run_edit(bufnr, cmd.line1, cmd.line2, input)
      end)
    end
  end, { range = true, nargs = "*", desc = "cad-lsp: AI edit of the selected lines" })

  vim.api.nvim_create_user_command("CadApply", function(cmd)
    local register = cmd.args ~= "" and cmd.args or M.default_register()
    if #register ~= 1 then
      return vim.notify("cad-lsp: :CadApply takes one register name, e.g. :CadApply a", vim.log.levels.ERROR)
    end
    local update = vim.fn.getreg(register)
    if type(update) ~= "string" or vim.trim(update) == "" then
      return vim.notify(("cad-lsp: register %s holds no update"):format(register), vim.log.levels.WARN)
    end
    M.apply(vim.api.nvim_get_current_buf(), update, nil, vim.schedule_wrap(notify_result), cmd.bang)
  end, {
    nargs = "?",
    bang = true, -- :CadApply! applies a merge that leaves the buffer unparsable
    desc = "cad-lsp: apply the update in a register (default: the clipboard) to the buffer",
  })

  vim.api.nvim_create_user_command("CadApplyAnswer", function(cmd)
    local register = cmd.args ~= "" and cmd.args or M.default_register()
    if #register ~= 1 then
      return vim.notify("cad-lsp: :CadApplyAnswer takes one register name, e.g. :CadApplyAnswer a", vim.log.levels.ERROR)
    end
    local text = vim.fn.getreg(register)
    if type(text) ~= "string" or not text:find("```") and not text:find("~~~") then
      return vim.notify(("cad-lsp: register %s holds no chat answer with a code block"):format(register), vim.log.levels.WARN)
    end
    M.apply_answer(vim.api.nvim_get_current_buf(), text, vim.schedule_wrap(notify_result), { partial = cmd.bang })
  end, {
    nargs = "?",
    bang = true, -- :CadApplyAnswer! applies the files that merged even when some blocks did not
    desc = "cad-lsp: apply the chat answer in a register (default: the clipboard) to every file it names",
  })
end

return M
