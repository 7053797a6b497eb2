"""A chat answer read as the files it changes: its fenced code blocks, each with the path it names.

A chat model says which file a block is for in one of a few ways, and the clients that show its answers
read the same ones: a path in the fence's info string (```` ```python src/app.py ````, ```` ```ts:src/app.ts
````), a first line that names the file (``// filepath: src/app.ts``, ``# File: src/app.py (new)``), or the
line before the fence: a path alone (Aider), in a heading or in bold, or a heading or a sentence ending with a
colon that names one file (``### 2. Update `src/app.py` ``, ``Here's the updated `src/app.py`:``).  Shell
sessions and their output are code blocks too but change no file: they are set aside with the reason, so a
user sees nothing was lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .lines.reading import IMPORT_LINE, definitions_in, line_key
from .markers import is_marker
from .patch import codex_patch_files, looks_like_codex_patch, looks_like_patch, patch_files
from .search_replace import looks_like_search_replace, parse_sections

__all__ = ["AN_EXAMPLE", "Block", "Reading", "Removal", "Skipped", "looks_like_path", "read_answer"]

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")

# Languages whose blocks are commands or what they print, not a file (unless they name one).
_SHELL = {"bash", "sh", "shell", "zsh", "fish", "console", "shell-session", "shellsession", "terminal",
          "powershell", "ps", "ps1", "pwsh", "cmd", "bat", "batch", "text", "txt", "plaintext", "plain",
          "output", "log", "none"}
# Blocks that are not code to merge at all: a patch says its own change, a tree or mermaid draws one.
_PLAIN = {"text", "txt", "plaintext", "plain"}  # a block of plain text: output, or a file of text
_TEXT_FILES = (".txt", ".ini", ".cfg", ".conf", ".env", ".properties", ".csv")
_NOT_CODE = {"mermaid": "a diagram", "tree": "a folder tree"}
_PATCH = {"diff", "patch", "udiff"}
# Data a block's language says it holds, and the files that hold such data: a JSON response under a heading that
# names a Python file is an example of what it answers, not that file's.
_DATA = {"json": (".json", ".jsonc", ".json5"), "jsonc": (".json", ".jsonc"), "yaml": (".yml", ".yaml"),
         "yml": (".yml", ".yaml"), "toml": (".toml",), "csv": (".csv",), "http": (".http",),
         "graphql": (".graphql", ".gql")}
# First words of a line that is a command someone types, for blocks that do not say their language.
_COMMANDS = {"pip", "pip3", "python", "python3", "npm", "npx", "yarn", "pnpm", "git", "cd", "ls", "mkdir",
             "cargo", "go", "make", "docker", "kubectl", "curl", "wget", "brew", "apt", "apt-get", "sudo",
             "uv", "poetry", "pytest", "node", "deno", "bun", "export", "source", "chmod", "rm", "cp", "mv",
             "echo", "cat", "touch", "gradle", "mvn", "dotnet", "bundle", "gem", "rustup", "conda"}
# Files named without an extension that are still files.
_BARE_NAMES = {"Makefile", "Dockerfile", "Gemfile", "Rakefile", "Procfile", "Justfile", "Vagrantfile",
               "Containerfile", "BUILD", "WORKSPACE", "CMakeLists.txt", "LICENSE", "README", "go.mod", "go.sum",
               "go.work", "Podfile", "Jenkinsfile", "Caddyfile", "Brewfile", "Pipfile", "Tiltfile"}
# Names that read as files but are what prose calls a framework ("### Node.js" is a heading, not a file).
_NOT_FILES = {"node.js", "vue.js", "next.js", "nuxt.js", "express.js", "three.js", "d3.js", "chart.js", "react.js",
              "angular.js", "ember.js", "backbone.js", "nest.js", "socket.io", "asp.net", "ado.net", "solid.js",
              "alpine.js", "p5.js", "tf.js", "brain.js", "math.js", "moment.js", "day.js", "ml5.js"}
_PATH_TOKEN = re.compile(r"^[\w@+~\-./\\]+$")
# A folder or a file stem that a web framework's router reads: ``[id]``, ``[...slug]``, ``[[...rest]]``, ``(admin)``
_ROUTE_SEGMENT = re.compile(r"(?:(?<=^)|(?<=[/\\]))(?:\[\[?(?:\.\.\.)?[\w-]+\]\]?|\([\w.-]+\))(?=[/\\.]|$)")
_EXTENSION = re.compile(r"\.[A-Za-z0-9_+\-]{1,12}$")

# A first line naming the file: a comment, an optional rule (``---``), an optional label, the path, an optional
# note on it ("(new file)", "- updated"), the comment's end.
_COMMENT_OPEN = r"(?://+|#+|--|;+|%+|/\*+|<!--|\{/\*|\(\*|'|REM\b|\{\{--|\{#|<%#|@\*)"  # (Blade's ``{{--``, Jinja's
# ``{#``, ERB's ``<%#``, Razor's ``@*``)
# ("In src/a.js", "Updated src/a.js", "New file: src/a.ts", TypeScript's twoslash ``// @filename: src/a.ts``)
_LABEL = (r"(?:(?:(?:updated|modified|changed|edited|new)\s+)?@?(?:file\s*path|filepath|file\s*name|filename|file|path)"
          r"\s*[:=]\s*|(?:in|updated|modified|changed|edited)\s+(?=`?\S*[/.]))")
_RULE = r"(?:[-=*~]{2,}\s*)?"
_PATH_NOTE = r"(?:\s*:|\s+\((?P<note>[^()]{1,40})\)|\s+[-\u2013\u2014]\s+(?P<aside>[\w ]{1,30}))?"
_NAMING_LINE = re.compile(rf"^\s*{_COMMENT_OPEN}\s*{_RULE}(?P<label>{_LABEL})?`?(?P<path>(?:[^\s:()`]|\([\w.-]+\)(?=/))+?)`?{_PATH_NOTE}\s*"
                          r"(?:[-=*~]{2,})?\s*(?:\*+/|-->|\*/\}|\*\)|--\}\}|#\}|%>|\*@)?\s*$", re.IGNORECASE)
# The line before a fence.  A line holding a path and little else names it ("src/app.py", "**`src/app.py`**",
# "### 2. `src/app.py` (new)", "File: src/app.py:"); so does a heading, a bold line or a sentence that ends
# with a colon and names exactly one file ("Update `src/app.py`:", "### Step 2: change `src/app.py`").
_PATH_LINE = re.compile(r"^\s*(?:#{1,6}\s+)?(?:[-*]\s+)?(?:\*\*|__)?\s*(?:\d{1,2}[.)]\s+)?"
                        r"(?:(?:file|path|filename|filepath)\s*:\s*)?"
                        r"(?:\*\*|__)?`?(?P<path>[^`*\s]+?)`?(?:\*\*|__)?\s*:?\s*(?:\*\*|__)?\s*:?\s*$",
                        re.IGNORECASE)
# A path in backticks, then a note in brackets of any length: "`app/models/post.rb` (add the scope below `visible`)"
_PATH_THEN_NOTE = re.compile(r"^\s*(?:#{1,6}\s+)?(?:[-*]\s+|\d{1,2}[.)]\s+)?(?:\*\*|__)?`(?P<path>[^`\s]+)`(?:\*\*|__)?"
                             r"\s*\((?:[^()]|\([^()]*\))*\)\s*:?\s*$")
_LINE_PREFIX = re.compile(r"^\s*(?:>\s*)*(?:#{1,6}\s+)?(?:[-*+]\s+|\d{1,2}[.)]\s+)?")
_EMPHASIS = re.compile(r"(?<![\w`])[*_]{1,3}|[*_]{1,3}(?![\w`])")
_LABELLED = re.compile(r"^(?:file\s*path|filepath|file\s*name|filename|file|path)\s*:\s*", re.IGNORECASE)
_TRAILING_NOTE = re.compile(r"\s*(?:\([^()]{1,40}\)|[-\u2013\u2014]\s+[\w ]{1,30})?\s*:?\s*$")
_AFTER = re.compile(r"\b(?:after|below|beneath|under|underneath|following|between|next\s+to)\s+(?:the\s+)?(?:existing\s+)?"
                    r"(?:[a-z-]+\s+){0,2}?"  # (a word or two between: "below the catch-all `handleUnexpected`")
                    r"(?:`(?P<impl>impl\s+)?(?:(?:class|struct|enum|trait|interface|mod|module|fn|def|func|function)\s+)?"
                    r"(?:[\w.:]+(?:\.|::))?(?P<name>[A-Za-z]\w*(?:-\w+)+|\w+[?!]?|--?\w[\w-]*|/[\w/:{}.-]*|:[\w-]+|[.#][A-Za-z_][\w-]*[=?!]?)(?:/\d+)?(?:\([^`]*\))?(?:\s*\{[^`]*\})?;?`|"
                    r"\*\*(?P<section>[^*]{1,60})\*\*|`#{1,6}\s+(?P<heading>[^`]{1,60})`|"
                    r"`?\"(?P<quoted>[^\"`]{1,60})\"`?|`'(?P<single>[^'`]{1,60})'`|`(?P<code>[{(][^`]{2,80})`)",
                    re.IGNORECASE)  # ("between `a` and `b`": after a; an entry: "after `{Phoenix.PubSub, ...}`"; a
# section, bold; a test by its title, ``right after `"show renders the article"` `` or ``after `'refetches'` ``; CSS's
# ``:root``)
_BEFORE = re.compile(r"\b(?:before|above|ahead\s+of|preceding)\s+(?:the\s+)?(?:existing\s+)?(?:[a-z-]+\s+){0,2}?"
                     r"(?:`(?:[\w.:]+(?:\.|::))?(?P<name>\w+[?!]?|[.#][A-Za-z_][\w-]*)(?:/\d+)?(?:\([^`]*\))?`|"
                     r"`#{1,6}\s+(?P<heading>[^`]{1,60})`|`(?P<tag><[\w.:-]+)[^`<>]*>`|"
                     r"\"(?P<quoted>[^\"`]{1,60})\"(?=\s+(?:one|section|heading|test|block|entry)\b))",
                     re.IGNORECASE)  # (a Markdown section: `## Notes`; an element: "right above the `<table>`")
# A sentence that ends saying what follows is printed or answered, or a heading that is only that word.
# A block's first line saying where its code goes, as a comment: "# Add after send_payment_failed()", "// Insert
# this below the `login` handler"
_PLACE_COMMENT = re.compile(r"\A[ \t]*(?:#|//|--|/\*)[ \t]*(?:add|insert|place|put|paste|append)\b[^\n:]*?\b"
                            r"(?P<where>after|below|before|above)[ \t]+(?:the[ \t]+)?(?:existing[ \t]+)?`?"
                            r"(?:(?:def|func|fn|function)[ \t]+)?(?P<name>[A-Za-z_$][\w$]*)(?:\(\))?`?"
                            r"(?:[ \t]+(?:function|method|handler|class))?[ \t]*[.:]?[ \t]*(?:\*/)?[ \t]*\r?\n",
                            re.IGNORECASE)
# A comment between fragments saying where the next one goes: "# next to format_money/2:", "// below `handleSubmit`:"
_GOES_NEXT_TO = re.compile(r"^[ \t]*(?:#|//|--)[ \t]*(?P<where>(?i:next to|below|after|above|before))[ \t]+`?"
                           r"(?P<name>[A-Za-z_$][\w$]*(?=[\w$]*(?:/\d|\(\)|`))|[a-z$]*_[\w$]*|[a-z$]+[A-Z][\w$]*)"
                           r"(?:/\d+|\(\))?`?[ \t]*:[ \t]*\r?$")
# A sentence saying where commands run: "Run this from the `src/Catalog.Api` folder:", "in the `web/` directory run:"
_RUN_THERE = re.compile(r"\b(?:from|in|inside|within)\s+(?:the|your)\s+`[^`]+`\s+(?:folder|directory|dir)\b",
                        re.IGNORECASE)
_TESTS = re.compile(r"\s+(?:tests|test\s+cases|specs)\b", re.IGNORECASE)  # "after the existing `add_months` tests"
# "after the existing `check` calls", "after the `test_full();` call"
_CALLS = re.compile(r"\s+(?:calls?|invocations?|lines)\b", re.IGNORECASE)
_SCRIPT_PATH = re.compile(r"(?:[\w.-]+/)*(?:bin|sbin|scripts?|\.husky|\.githooks|hooks|libexec)/[A-Za-z][\w-]*")
# An import said in the prose, to add with the block: "(and add `using Billing.Domain.Common;` at the top)"
_IMPORT_SAID = re.compile(r"`((?:import\s+[^`]+|using\s+[\w.]+;|use\s+[\w\\:{}, ]+;|from\s+[\w.]+\s+import\s+[^`]+|"
                          r"#include\s+[<\"][^`]+[>\"]))`")
_ADD_AN_IMPORT = re.compile(r"\b(?:add(?:ing)?|update|change)\b[^.]*`(?:import|using|use|from|#include)\b",
                            re.IGNORECASE)  # (also "update the import to `from .forms import A, B`")
_OUTPUT_SENTENCE = re.compile(r"\b(?:returns|responds(?: with)?|prints|outputs|you(?:'ll| will| should) (?:see|get)|"
                              r"(?:output|response|result)s?)\s*:\s*$", re.IGNORECASE)
_OUTPUT_HEADING = re.compile(r"^\s*#{1,6}\s+(?:(?:example|sample|expected)\s+)?(?:output|response|result)s?\s*$",
                             re.IGNORECASE)
_WHOLE_FILE = re.compile(r"\b(?:(?:full|complete|entire|whole)\s+(?:updated\s+|new\s+)?(?:file|version of|module|"
                         r"contents|code|`[^`\s]+\.\w+`)|"
                         r"in full\b(?!\s+(?:right\s+|just\s+)?(?:below|above|after|before|under)\b)|"
                         r"(?:rewrite|replace)\s+(?:the\s+(?:whole|entire)\s+|"
                         r"your\s+)?`[^`\s]+\.\w+`\s*(?:entirely|completely|with)?\s*[:.*]*\s*$|"
                         r"replace\s+(?:the\s+(?:entire\s+|whole\s+)?contents\s+of|everything\s+in)|overwrite\s+`|"
                         r"final\s+version\s+of|(?:here'?s|here\s+is)\s+the\s+updated\s+file\b)", re.IGNORECASE)
_BELOW_IMPORTS = re.compile(r"\b(?:below|after|under)\s+(?:the|its|your)\s+(?:existing\s+)?"
                            r"(?:imports?|import\s+(?:block|section|list|statements?))\b", re.IGNORECASE)
# "Add this method to the `Cart` class", "add a `total` method to `Order`", "inside the `Cart` class", "inside the
# existing `describe("POST /users", ...)` block" (a block titled by a call's first argument: its title)
_INTO = re.compile(r"\b(?:to|in|into|inside|(?:end|bottom)\s+of)\s+(?:the\s+|your\s+)?(?:existing\s+)?`(?:(?P<mod>mod\s+)?"
                   r"(?P<name>[A-Za-z_][\w.]*)|"
                   r"[A-Za-z_][\w.]*\(?\s*[\"'](?P<title>[^\"'`]+)[\"'][^`]*)`"
                   r"\s*(?P<kind>class|struct|enum|interface|protocol|trait|record|object|component|model|service|"
                   r"controller|module|describe|suite|context)?",
                   re.IGNORECASE)
_ADDS_TO = re.compile(r"\badd\b(?:\s+[\w-]+){0,4}?\s+to\s+(?:the\s+|your\s+)?[`*]*[\w./-]*[\w.-]+", re.IGNORECASE)
# The words a sentence may open with before it says what to do ("Then, delete ...", "Also remove ...")
_OPENS = r"\W*(?:(?:then|also|now|and|first|next|finally),?\s+)?"
# A sentence that says to delete what the block shows ("Remove the following method from `Invoice.cs`:")
_REMOVE_SHOWN = re.compile(_OPENS + r"(?:remove|delete)\s+(?:the\s+following|this|these)\b[^:]{0,80}:\s*$",
                           re.IGNORECASE)
_ADD_THIS = re.compile(r"\s*(?:(?:then|and|also|now|next|finally),?\s+)?add\b", re.IGNORECASE)  # ("Then add a
# table-driven test:": to the file the answer is changing)
_AT_THE_END = re.compile(r"\b(?:(?:to|at)\s+the\s+(?:very\s+)?(?:end|bottom)(?:\s+of\b|\s*:?\s*$)|"
                         r"append(?:ed)?\s+(?:\w+\s+)?to\b|(?:after|below)\s+the\s+(?:very\s+)?last\s+(?:existing\s+)?"
                         r"(?:test|method|function|case|one|entry|handler|route|spec|example)\b(?!\s*`))",
                         re.IGNORECASE)  # ("inside the class after the last test:")
_A_TYPE = re.compile(r"\s*(?:the\s+|this\s+|that\s+)?(?:class|struct|module|object|impl|interface|trait|enum|"
                     r"component|controller|service|model|record|describe|suite)\b", re.IGNORECASE)
_BACKTICKED = re.compile(r"`([^`\s]+)`")
_SPANS = r"`[^`\n]+`(?:\s*(?:,|and|,\s*and)\s*`[^`\n]+`)*"  # spans listed: "`a`, `b` and `c`"
_SPAN = "`\x00`"  # a backticked span, set aside while emphasis is stripped around it
# Extensions a bare word in a sentence must have to be read as a file ("e.g." and "v2.0" are not files).
# The file extensions a block's language may go to: for blocks that name no file and go to the default one, and
# for a block in a file's language named after commands, which is that file, not what they print
EXTENSIONS = {
    "python": {"py", "pyi", "pyw"}, "py": {"py", "pyi", "pyw"},
    "javascript": {"js", "mjs", "cjs", "jsx"}, "js": {"js", "mjs", "cjs", "jsx"}, "jsx": {"jsx", "js"},
    "typescript": {"ts", "mts", "cts", "tsx"}, "ts": {"ts", "mts", "cts", "tsx"}, "tsx": {"tsx", "ts"},
    "go": {"go"}, "rust": {"rs"}, "rs": {"rs"}, "java": {"java"}, "kotlin": {"kt", "kts"},
    "c": {"c", "h"}, "cpp": {"cc", "cpp", "cxx", "hpp", "hh", "hxx", "h"}, "c++": {"cc", "cpp", "cxx", "hpp", "h"},
    "csharp": {"cs"}, "cs": {"cs"}, "ruby": {"rb"}, "rb": {"rb"}, "php": {"php"}, "swift": {"swift"},
    "lua": {"lua"}, "json": {"json", "jsonc"}, "yaml": {"yaml", "yml"}, "yml": {"yaml", "yml"},
    "toml": {"toml"}, "html": {"html", "htm"}, "css": {"css"}, "scss": {"scss"}, "sql": {"sql"},
}
_CODE_EXTENSIONS = {
    "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "go", "rs", "java", "kt", "kts", "c", "h",
    "cc", "cpp", "cxx", "hpp", "cs", "rb", "php", "swift", "lua", "scala", "sql", "sh", "bash", "zsh", "ps1", "r",
    "jl", "dart", "ex", "exs", "erl", "hs", "ml", "clj", "el", "vim", "vue", "svelte", "html", "htm", "css", "scss",
    "sass", "less", "json", "jsonc", "yaml", "yml", "toml", "ini", "cfg", "conf", "env", "xml", "gradle", "md",
    "mdx", "rst", "txt", "proto", "graphql", "tf", "nix", "zig", "nim", "sol", "prisma", "hcl", "tfvars", "gd",
    "tscn", "erb", "ejs", "hbs", "j2", "jinja", "plist", "properties", "csproj", "xaml", "cshtml", "razor", "cmake",
}
# Extensions a sentence names as kinds of file ("to write `.xlsx` files"), not dotfiles (``.env``, ``.npmrc``)
_EXTENSION_WORDS = (_CODE_EXTENSIONS - {"env"}) | {"xlsx", "xls", "csv", "tsv", "pdf", "png", "jpg", "jpeg", "gif",
                                                   "webp", "svg", "zip", "gz", "tar", "docx", "parquet", "mp3", "mp4"}
# A sentence saying to delete definitions ("You can now delete the old `SendEmailAsync`", "Remove `a` and `b` from
# `app/views.py`"): the verb, then what it removes up to the sentence's end or a clause of its own.
_REMOVE = re.compile(r"\b(?:delete|remove|drop|get\s+rid\s+of)d?\b(?P<what>.*?)"
                     r"(?=[.;!?:](?:\s|$)|\s[-\u2013\u2014(]\s?|,\s+(?:and|then)\b|\b(?:delete|remove|drop)\b|"
                     r"\b(?:together|along)\s+with\b(?=[^.]*\blines?\b)|"  # (lines that go with it: "_WITH_LINES")
                     r"\b(?:but|so|since|because|as|which|"
                     r"then|while|instead|and\s+(?:add|use|call|move|keep|replace|update|change|rename|drop|remove|"
                     r"delete))\b|$)", re.IGNORECASE)
# A sentence whose subject is what goes: "The `PLATFORMS` array and the `Platform` import go away", "`legacy_sync`
# can be deleted" (not "is no longer used", which says what is, nor "it can go before the subcommand").
_GOES_AWAY = re.compile(r"(?:^|(?<=[.;:!?]\s))(?P<what>[^.;:!?`]*`[^.;:!?]*?)\s+(?:go(?:es)?\s+away|"
                        r"(?:can|should)\s+(?:now\s+)?be\s+(?:removed|deleted))\b", re.IGNORECASE)
_SO_THEN = re.compile(r"\bso\s+(?:you\s+can\s+|just\s+|simply\s+)?[*_]*$", re.IGNORECASE)
# Words that make the sentence something other than a removal to do: a condition, a denial, an option.
_NOT_DONE = re.compile(r"\b(?:not|don'?t|doesn'?t|never|no\s+need|without|if|unless|optional(?:ly)?|could|might|"
                       r"may|consider|whether|rather|keep|follow[- ]?up|eventually)\b|n't\b", re.IGNORECASE)
# What a removed name may be, said after it ("the `foo` helper"); anything else named after it ("the `foo` call",
# "the `id` parameter") is a use of the name, not its definition.
_DEFINITION_NOUNS = {"method", "methods", "function", "functions", "helper", "helpers", "class", "classes",
                     "component", "hook", "handler", "handlers", "endpoint", "route", "fn", "def", "struct",
                     "view", "views", "test", "tests", "fixture", "definition", "implementation", "interface",
                     "type", "enum", "constant", "constants", "field", "fields", "property", "properties",
                     "variable", "entirely", "completely", "altogether", "too", "also", "now", "as", "and", "or",
                     "from", "in", "of", "since", "because", "(", "it", "they", "them", "version", "one", "ones",
                     "private", "public", "protected", "static", "old", "unused", "legacy", "deprecated", "along",
                     "command", "commands", "subcommand", "action", "actions"}
_PREPOSITIONS = {"from", "in", "inside", "on", "of", "to", "for", "at", "with", "within", "into",
                 "under", "below", "above", "after", "before", "beside", "next"}  # ("drop these right under `X`")
_REMOVED_NAME = re.compile(r"^(?:[A-Za-z_$][\w$]*(?:\.|::))*(?P<name>[A-Za-z_$][\w$]*)(?:\([^()]*\))?$")
# A file's first line that a model prints before the line naming the file: a directive, PHP's opening tag, a shebang.
_PROLOGUE = re.compile(r"""^\s*(?:(["'])use (?:client|server|strict)\1;?|<\?php|#!.*|#\s*-\*-.*-\*-)\s*$""")
_USAGE = re.compile(r"\b(?:usage|(?<!\bnew )(?<!\bthese )examples?(?!\s+groups?\b)|for instance|"
                    r"(?<!should look )(?<!should now look )(?<!will look )(?<!will now look )like (?:this|so)|"
                    r"in action|(?:could|might|would) look like|"
                    r"(?:you can|you'd|you would|now you can) (?:now )?(?:call|use|run|test|try|invoke)|"
                    r"how to (?:use|call|test|try)|(?:from|in) (?:the |your )?(?:browser(?:'s)? )?(?:dev ?tools )?"
                    r"console)\b|^\W*(?:(?:then|now),?\s+)?(?:test|try|call|use) it\b",
                    re.IGNORECASE)  # (not RSpec's "new example group" or "add these examples"; not what the file
# should now look like: "The auth group should now look like this:")
# A sentence that puts the block in a file ("In `index.blade.php` you can pass ...", "Then, in `app/routes.py`:"),
# which says the file is there already, unless it says to create it
_IN_FILE = re.compile(r"(?:^|[.!?]\s+)\W*(?:(?:then|and|also|next|now|finally),?\s+)?in\s+(?:the\s+|your\s+)?[`*]*"
                      r"[\w./\\-]+\.\w+", re.IGNORECASE)  # (a sentence of its own: "... exists. In your `x.ts`:")
# ... or that puts it inside what the file holds ("If your `rails_helper.rb` doesn't include it yet, add this inside
# the `RSpec.configure` block:")
_CHANGE_IN = re.compile(r"\b(?:if\s+your|inside\s+(?:the|your)|into\s+(?:the|your)\s+existing|the\s+place\s+where|"
                        r"wherever\s+you|usually)\b", re.IGNORECASE)  # ("update the place where you build it (usually
# `cmd/main.go`)")
_CREATES = re.compile(r"\b(?:create|new file|add (?:a |the )?(?:new )?file)\b", re.IGNORECASE)
_OPTIONAL = re.compile(r"\b(?:if you(?:'d| would)? (?:rather|prefer)|if you prefer|alternatively|optionally)\b|"
                       r"(?:^|[.!?]\s+)(?:or|you (?:could|can|might)(?: also)?|another option)\b[^.!?]*\binstead\W*$",
                       re.IGNORECASE)
# (not "..., let the filter print the zone abbreviation instead:", the change itself)
# "Replace `loadArticles()` with `loadPage(_:)`": the block's new definition takes the old one's place
# "replace `loadArticles()` with `loadPage(_:)`", "replace `usersCannotUpdateAccounts` with one test per case"
_REPLACED_BY = re.compile(r"\breplace\s+(?:the\s+|your\s+)?(?:existing\s+|old\s+|current\s+|whole\s+|entire\s+)?"
                          r"`(?:(?:pub\s+)?(?:async\s+)?(?:fn|def|func|function)\s+)?(?P<old>[A-Za-z_][\w.]*)(?:\([^`]*\))?`\s+"
                          r"(?:(?:at\s+the\s+(?:bottom|top|end)\s+)?(?:in|of)\s+(?:the\s+)?`[^`\s]+`\s+)?"
                          r"(?:\([^()`]*\)\s+)?(?:and\s+its\s+(?:doc\s+)?(?:comment|docstring|javadoc|attributes?|"
                          r"decorators?)\s+)?"  # ("(including its doc comment)", "and its doc comment")
                          r"(?:\w+\s+)?with(?:\s*:|\s+(?:this|these|the\s+following)"
                          r"(?:\s+(?:one|two|three|new|version|versions|code|functions|methods|tests)){0,2}\s*:|\s+"
                          # ("replace `x` in `FooTest.java` with:", "... with this:")
                          r"(?:(?:a|an|the|your|new|two|three|one|this|these|following)\s+)*"
                          r"(?:`(?P<new>[A-Za-z_][\w.]*)(?:\([^`]*\))?`|(?:[\w-]+\s+)?(?P<what>tests?|methods?|functions?|"
                          r"versions?|implementations?|handlers?|helpers?|routes?|endpoints?|ones?)\b))", re.IGNORECASE)
# "`test_delete_removes_customer` no longer describes what happens, so **replace it** with these:", "and
# `Create_ReturnsBadRequest_WhenNoLines` needs replacing"
_REPLACE_IT = re.compile(r"`(?P<old>[A-Za-z_][\w.]*)(?:\(\))?`[^`]*\b(?:replace\s+it|needs?\s+(?:to\s+be\s+)?"
                         r"replac(?:ing|ed)|should\s+be\s+replaced)\b(?P<new>)", re.IGNORECASE)
# "The old `deleteRemovesCustomer` test verifies `deleteById`, which no longer happens. Replace it with:"
_OLD_ONE_REPLACED = re.compile(r"\b(?:old|existing|current)\s+`(?P<old>[A-Za-z_][\w.]*)(?:\(\))?`(?:.*?\breplace\s+it\b|"
                               r"\s+(?:\w+\s+)?(?:is|gets|will\s+be)\s+replaced\s+(?:by|with)\b)(?P<new>)",
                               re.IGNORECASE)  # ("the old `test_drafts_are_not_shown` is replaced by one that")
_FOR_EXAMPLE = re.compile(r"\b(?:e\.\s?g\.|for (?:example|instance)|such as|something like)", re.IGNORECASE)
_CITATION = re.compile(r"^(\d+):(\d+):(\S+)$")
# Lines of the file a block stands for, after its path: Continue's ``(12-30)``, ``(L12-L30)``, ``#L12-L30``.
_LINE_RANGE = re.compile(r"(?:\(\s*L?(?P<first>\d+)\s*[-\u2013:]\s*L?(?P<last>\d+)\s*\)"
                         r"|#L(?P<a>\d+)(?:-L?(?P<b>\d+))?|(?<=\w):(?P<c>\d+)-(?P<d>\d+))\s*$")
_PATH_WITH_RANGE = re.compile(r"(?:#L\d+(?:-L?\d+)?|:\d+(?:-\d+)?)$")  # ``src/app.py#L10-20``, ``src/app.py:10-20``
_INFO_ATTRIBUTE = re.compile(r"""(?:title|file|filename|path|filepath|name)\s*=\s*["']?(?P<path>[^"'\s}]+)""",
                             re.IGNORECASE)


def looks_like_path(token: str) -> bool:
    """Whether a token reads as a file's path: a name with an extension or a folder, not a language or a word."""
    token = re.sub(r"^[A-Za-z]:(?=[/\\])", "", token.strip())  # C:\src\app.py: a path (refused later)
    token = _ROUTE_SEGMENT.sub("x", token)  # (Next.js's and SvelteKit's ``app/(admin)/[id]/page.tsx``)
    if not token or token.startswith("-") or not _PATH_TOKEN.match(token) or token.endswith(("/", "\\")):
        return False
    if token.strip(".") == "" or re.fullmatch(r"[\d.]+", token):  # "...", "1.5"
        return False
    name = re.split(r"[/\\]", token)[-1]
    if token.lower() in _NOT_FILES:
        return False
    if name in _BARE_NAMES or re.fullmatch(r"\.[\w\-]+", name):  # Makefile, .gitignore, .env
        return True
    if _SCRIPT_PATH.fullmatch(token):  # an executable without an extension: ``bin/transcheck``, ``.husky/pre-commit``
        return True
    return bool(_EXTENSION.search(name)) and name.strip(".") != ""


@dataclass(frozen=True)
class Block:
    """A code block that changes a file: its text (without the fence or a line naming the file), the path it
    names (None: it names none), how it named it, its language from the info string and its line in the answer."""

    text: str
    path: str | None
    named_by: str | None  # "info", "first line", "line before", "diff header" (a diff's +++ line), or None
    language: str | None
    line: int  # 1-based line of the opening fence in the answer
    after: str | None = None  # the definition the prose says new code goes after ("right after `create`"; "": the end)
    before: str | None = None  # ... or before ("place it right above `releaseStock`")
    lines: tuple[int, int] | None = None  # the file lines the info string says it stands for (Continue's ``(48-52)``)
    whole: bool = False  # the prose says the block is the whole file ("Here's the full file:", "Rewrite `cli.rs`")
    below_imports: bool = False  # ... the whole file below its imports ("Replace the contents of `x_test.go`
    # below the import block with:")
    search_replace: bool = False  # SEARCH/REPLACE sections (Aider's, Cline's: ``program.search_replace``)
    cannot: str | None = None  # what the block asks that apply does not do (delete or rename a file), and why
    usage: bool = False  # the prose shows it as a use of the change ("You can call it like this:"), or a REPL session
    existing: bool = False  # the sentence naming the file says it is a change in it ("In `index.blade.php` you can")
    label: str | None = None  # a first line naming the path the info string names too, taken off: the file's own
    # header where the file starts with it (``{# templates/index.html #}``)
    adds: bool = False  # the sentence before says to add it to the file ("Add to `requirements.txt`:")
    add_said: bool = False  # the sentence before starts by saying to add it ("Then add a table-driven test:")
    removes: bool = False  # the sentence before says to delete what it shows ("Remove the following method from
    # `Invoice.cs`:")
    updates_import: bool = False  # the sentence before says to change an import ("update the import:")
    imports_replaced: bool = False  # ... or to replace the file's imports with the block's ("replace the imports at
    # the top with these")
    into: str | None = None  # the class the sentence before puts it in ("Add this method to the `Cart` class:")
    goes_on: str | None = None  # naming no file, the file the block before it named, which it may go on in
    inside: str | None = None  # the definition the sentence before says the change is in ("in `Fire()`, swap ...")
    replaces: tuple[str, ...] = ()  # the names of the file's lines the sentence says it replaces ("replace the
    # `SAMPLE_INTERVAL` and `STATUS_LED` lines:")
    replaces_last: int = 0  # ... or how many of the file's last lines ("replace the last two lines with:")
    go_imports: tuple[str, ...] = ()  # Go packages the prose says to add to the file's imports ("Add `"strings"` to
    # the imports")
    near_code: tuple[str, str] | None = None  # ("after" or "before", code) where the prose names a definition by
    # a line of it ("after the method that ends with `items.add(...)`"): the plan finds the one that holds it
    near_words: tuple[str, str] | None = None  # ("after" or "before", words) where the prose names the place in
    # words only ("after the invalid-data test"): the plan finds what of the file they name

    @property
    def is_patch(self) -> bool:
        """A unified diff (``program.patch``), not code to merge."""
        return self.language == "diff"

    def describe(self) -> str:
        return f"the block at line {self.line} of the answer"


AN_EXAMPLE = "it names no file while the answer's other blocks do: an example or a suggestion, not a change"


@dataclass(frozen=True)
class Skipped:
    """A code block that changes no file, and why it was read so."""

    line: int
    language: str | None
    reason: str


@dataclass(frozen=True)
class Removal:
    """Definitions the prose says to delete, by name, and the file it names for them (None: it names none)."""

    names: tuple[str, ...]
    path: str | None
    line: int  # 1-based line of the sentence in the answer
    sentence: str
    lines: bool = False  # the names start the lines to delete, not definitions ("Delete the `HEALTHCHECK` line")
    rule: bool = False  # the name is a style rule's selector ("delete the `.search-bar button` rule")
    element: bool = False  # the name is an element's opening tag ('delete the whole `<details class="legacy">...
    # </details>` block')
    within: str | None = None  # the class the sentence says holds them ("from `Article`")
    section: bool = False  # the name is the comment heading what to delete ('delete the whole "Format on save"
    # autocmd')
    inside: tuple[str, ...] = ()  # the definitions whose lines to delete (lines=True, every line that starts so:
    # "delete the `console.log` lines at the top of `addItem` and `removeItem`")
    every: bool = False  # lines=True: every line of the file that starts so ("the two `org.slf4j` imports")
    under: str | None = None  # the file the heading above the sentence names
    imported: bool = False  # lines=True: the import line that imports just that name ("the `UserRepository`
    # import", "`MessageDigest` is no longer used")


@dataclass(frozen=True)
class Reading:
    blocks: tuple[Block, ...]
    skipped: tuple[Skipped, ...]
    removals: tuple[Removal, ...] = ()
    going_on: tuple[Block, ...] = ()  # skipped as examples, unless they hold lines of the file named before them


def read_answer(markdown: str) -> Reading:
    """The answer's code blocks that change files, in order, and those that do not.  Line ends are read as
    ``\n`` (an answer copied on Windows): the merge gives new lines the file's own."""
    lines = markdown.replace("\r\n", "\n").splitlines(keepends=True)
    blocks, skipped, removals = [], [], []
    index, prose_start = 0, 0
    last: Block | Skipped | None = None
    section_path: str | None = None  # the file the last heading names
    while index < len(lines):
        opening = _FENCE.match(lines[index].rstrip("\r\n"))
        if not opening or (opening["fence"][0] == "`" and "`" in opening["info"]):
            index += 1
            continue
        removals += _removals(lines[prose_start:index], prose_start, section_path, _last_path(blocks))
        end = _closing(lines, index, opening["fence"])
        indent = len(opening["indent"])
        body = [_dedent(line, indent) for line in lines[index + 1:end]]
        if body and not body[-1].endswith(("\n", "\r")):
            body[-1] += "\n"
        prose = lines[prose_start:index]
        if blocks and last is blocks[-1]:
            last = blocks[-1] = _go_imports_said_after(_placed_by_what_follows(blocks[-1], prose), prose)
            blocks += _imports_said_after(last, prose)
        for k, heading in enumerate(prose):  # ("### `app/main.py`": its blocks, until the next heading)
            if _is_heading(prose, k):
                section_path = _path_named(heading)
            elif (all_in := _ALL_IN.search(heading)) and looks_like_path(all_in["path"]):
                section_path = all_in["path"]
        script = (last.path or last.goes_on) if isinstance(last, Block) and not last.is_patch else None
        for read in _read_block(opening["info"].strip(), body, prose, index + 1, script):
            if isinstance(read, Block) and not read.is_patch and (gone := _lines_marked_gone(read.text)):
                read = replace(read, text="".join(line for line in read.text.splitlines(keepends=True)
                                                  if not _GONE_MARK.match(line)))
                removals += [Removal((code,), read.path, index + 1, f"{code}: marked to be removed", lines=True)
                             for code in gone]  # (no path: of the one file the answer changes that has it)
                if not read.text.strip():
                    read = Skipped(read.line, read.language, "lines marked to be removed, and nothing else")
            if isinstance(read, Block) and not read.is_patch and _output_of(last, prose) and \
                    (read.path is None or read.named_by == "line before" and _in_passing(prose) and
                     not _code_of(read.language, read.path)):
                read = Skipped(read.line, read.language, "the output of the commands above, not a file")
            elif isinstance(read, Block) and read.path is None and not read.is_patch and _shows_output(prose):
                read = Skipped(read.line, read.language, "what something prints or answers, not a file")
            elif isinstance(read, Block) and read.path is None and section_path and not read.usage and \
                    not read.is_patch and read.language not in _SHELL and \
                    section_path.lower().endswith(_DATA.get(read.language or "", ("",))) and \
                    not _foreign_code(read.language, section_path) and \
                    not _OPTIONAL.search(_last_said(prose)):  # a second block under a file's heading (not an
                # alternative: "If you'd rather have the later row win a tie, use `>=` instead:")
                read = replace(read, path=section_path, named_by="line before")
            elif isinstance(read, Block) and read.path is None and _goes_on(last, read, prose) and \
                    (_SAME_FILE.search(_last_said(prose)) or _GOES_ON_SAYING.match("".join(prose).strip())):
                # ("Then add these methods at the end of the same class"; "and two new entries at the end of ...:")
                read = replace(read, path=last.path or last.goes_on, named_by="line before")
            elif isinstance(read, Block) and read.path is None and _goes_on(last, read, prose):
                read = replace(read, goes_on=last.path or last.goes_on)  # ("In `init()` of `x.swift`, ...:" a
                # block, then "Then enable background updates only while tracking:" and the next: the same file, if
                # it holds lines of it; the plan reads the file)
            elif isinstance(read, Block) and read.usage and read.named_by == "line before" and \
                    not _PATH_LINE.match(_last_said(prose)):
                read = Skipped(read.line, read.language, f"a use of the change in {read.path}, as the prose says "
                                                         f"(\"### Usage\", \"you can call it like this\"), not a change")
            said = next((line for line in reversed(prose) if line.strip() and not _PATH_LINE.match(line.strip())), "")
            swap = _REPLACED_BY.search(said.replace("**", "")) or _OLD_ONE_REPLACED.search(said.replace("**", "")) or \
                _REPLACE_IT.search(said.replace("**", "")) \
                if isinstance(read, Block) and read.path else None
            if swap and _defines(read.text, swap["new"]) and not _defines(read.text, swap["old"]):  # (the new one
                # named, or any definition: "with one test per case")
                read = replace(read, before=read.before or swap["old"])  # ("replace `loadArticles()` with
                removals.append(Removal((swap["old"],), read.path, index + 1, swap[0]))  # `loadPage(_:)`")
            if isinstance(read, Block) and read.path and (listed := _REPLACE_THESE.search(said)):
                named = [n.strip("`").split("(")[0] for n in re.findall(r"`[^`]+`", listed["names"])]
                gone = [n for n in named if _REMOVED_NAME.match(n) and not _defines(read.text, n)]
                if gone and len(gone) < len(named):  # ("Replace `test_mart_refresh_runs_after_merge` and
                    removals.append(Removal(tuple(gone), read.path, index + 1, listed[0]))  # `test_retries`
                    # ...:" and a block that defines the second and new ones: the first goes)
                elif gone and _defines(read.text, None) and read.after is None and read.before is None and \
                        not any(re.search(rf"(?<![\w$]){re.escape(n)}(?![\w$])", read.text) for n in named):
                    read = replace(read, before=gone[0])  # (none of them shown again: the new ones go where the
                    removals.append(Removal(tuple(gone), read.path, index + 1, listed[0]))  # first was, they go)
            if isinstance(read, Block) and (read.path or read.goes_on) and not read.is_patch and \
                    (lines_said := _REPLACE_LINES.search(said.replace("**", "")) or
                     _REPLACE_LINES_LISTED.search(said.replace("**", ""))) and \
                    (not lines_said.groupdict().get("tag") or f"</{lines_said['tag'][1:]}>" in read.text) and \
                    (not lines_said.groupdict().get("title") or _renames_one_test(read.text, lines_said["title"])):
                # (an element swapped, shown whole: not its opening tag alone, "Swap the `<button>` for one that
                # ..."; a test by its title where the block renames it: a test shown with its title is found by it)
                read = replace(read, replaces=tuple(n.strip("`") for n in re.findall(
                    r"`[^`]+`", lines_said["names"] or lines_said.groupdict().get("path") or
                    lines_said.groupdict().get("title") or
                    lines_said.groupdict().get("code") or lines_said.groupdict().get("now") or
                    f"`{lines_said.groupdict().get('tag') or ''}`")))
            elif isinstance(read, Block) and read.path and not read.is_patch and \
                    (code_said := _REPLACE_CODE.search(said.replace("**", ""))):
                read = replace(read, replaces=(code_said["code"].strip(),))
            elif isinstance(read, Block) and read.path and not read.is_patch and \
                    (last_lines := _REPLACE_LAST_LINES.search(said.replace("**", ""))):
                count = last_lines["count"] or "one"
                read = replace(read, replaces_last=int(count) if count.isdigit() else _COUNTS[count.lower()])
            if isinstance(read, Block) and read.path and read.after is None and read.before is None and \
                    (it := _BELOW_IT.search(_last_said(prose))):  # ("Add the stats handler right below it:")
                named = [_REMOVED_NAME.match(t) for t in _BACKTICKED.findall(_last_said(prose)[:it.start()])
                         if not _names_file(t)]
                shown = [b for b in blocks if b.path == read.path][-1:]
                read = replace(read, after=named[0]["name"] if len(named) == 1 and named[0] else
                               _last_defined(shown[0].text) if shown else None)  # ("a locking variant of
                # `GetOrder` right below it": that one)
            (blocks if isinstance(read, Block) else skipped).append(read)
            last = read
        index = end + 1
        prose_start = index
    removals += _removals(lines[prose_start:], prose_start, section_path, _last_path(blocks))
    if blocks and last is blocks[-1]:
        blocks[-1] = _go_imports_said_after(_placed_by_what_follows(blocks[-1], lines[prose_start:]),
                                            lines[prose_start:])
        blocks += _imports_said_after(blocks[-1], lines[prose_start:])
    if any(block.path is not None for block in blocks):  # the answer names its files: one that names none is
        examples = [b for b in blocks if b.path is None and not b.is_patch]  # a usage example or a suggestion
        blocks = [b for b in blocks if b not in examples]
        skipped = sorted(skipped + [Skipped(b.line, b.language, AN_EXAMPLE) for b in examples], key=lambda s: s.line)
        return Reading(tuple(blocks), tuple(skipped), tuple(removals), tuple(b for b in examples if b.goes_on))
    return Reading(tuple(blocks), tuple(skipped), tuple(removals))


# The sentence before a block says it goes in the file named before it
_SAME_FILE = re.compile(r"\b(?:the same|that same|that|this same) (?:file|class|module|component|script|struct|object|"
                        r"controller|model|service|test file|suite|spec|view|template|resource)\b", re.IGNORECASE)


# Prose between two blocks that goes on with the sentence before the first: "and two new entries at the end of the
# `StyleSheet.create` call:", "plus its test:"
_GOES_ON_SAYING = re.compile(r"(?:and|plus)\s[^\n]*:$", re.IGNORECASE)  # ("And one more right below it ...:")


# "right after the database settings" of a settings file: the section its comment heads (``# Database``)
_AFTER_SETTINGS = re.compile(r"\b(?:after|below|under|beneath)\s+(?:the|your)\s+(?:existing\s+)?(?P<words>[A-Za-z][\w-]*)\s+"
                             r"(?:settings|section|block|variables|vars|config(?:uration)?|group|entries|keys)\b",
                             re.IGNORECASE)
# A place named in words, by what is there: "after the invalid-data test", "below the login handler"
_NEAR_WORDS = re.compile(r"\b(?P<where>after|below|beneath|under|following|before|above)\s+(?:the|your)\s+"
                         r"(?:existing\s+|current\s+)?(?P<words>(?:[A-Za-z0-9][\w/.-]*\s+){0,3}?[A-Za-z0-9][\w/.-]*)\s+"
                         r"(?:tests?|specs?|cases?|examples?|scenarios?|sections?|blocks?|handlers?|routes?|endpoints?|"
                         r"functions?|methods?|helpers?|describe|context|one)\b")  # ("after the 410 one")
# A line named by its code: "right under the `alias Chat.Messages` line", "below `import httpx`", "below the line
# that declares the `error` state"
_NEAR_LINE = re.compile(r"\b(?P<where>after|below|beneath|under|underneath|following|before|above)\s+(?:the\s+)?"
                        r"(?:existing\s+|closing\s+|opening\s+)?(?:line\s+(?:that\s+(?:sets|declares|defines|creates|"
                        r"assigns|initiali[sz]es|holds|reads)\s+(?:the\s+)?)?)?`(?P<code>[^`]{2,120})`", re.IGNORECASE)
# Between two lines named by their code: before the second ("between the `@Transactional` annotation and `public
# Product updatePrice(`")
_BETWEEN_CODE = re.compile(r"\bbetween\s+(?:the\s+)?`[^`]+`(?:\s+[\w-]+)?\s+and\s+(?:the\s+)?`(?P<second>[^`]{3,120})`")
# A definition named by a line of it: "after the function that calls `dao.delete(task)`", "after the test that
# expects `"17.00"`"
_NEAR_CODE = re.compile(r"\b(?P<where>after|below|before|above)\s+(?:the\s+(?:closing\s+brace|`?end`?|`\}`)\s+"
                        r"(?:of|that\s+closes)\s+)?the\s+(?:\w+\s+)?(?:function|method|test|handler|action|helper|"
                        r"case|example|spec|route|endpoint)\s+(?:that\s+(?P<verb>[\w-]+\s+)(?:[\w-]+\s+){0,3}?|"
                        r"(?P<ing>calling|returning|holding|containing)\s+(?:the\s+)?)`(?P<code>[^`]{2,120})`",
                        re.IGNORECASE)  # (and "after the
# closing brace of the method that returns the `invoices.show` view", "after the `end` that closes the method
# calling `update!(...)`")
# ... or between two, by what is there: "between the Jumping and Ground Check sections" (before the second)
_BETWEEN_WORDS = re.compile(r"\bbetween\s+(?:the|your)\s+(?:[A-Za-z][\w/.-]*\s+){1,3}?and\s+(?:the\s+)?"
                            r"(?P<words>(?:[A-Za-z][\w/.-]*\s+){0,3}?[A-Za-z][\w/.-]*)\s+(?:sections|blocks|tests|"
                            r"handlers|routes|functions|methods)\b")
_SETTINGS_FILE = re.compile(r"(?:^|/)\.env(?:\.\w+)?$|\.(?:env|ini|cfg|conf|properties|toml|ya?ml|tfvars)$", re.IGNORECASE)


# The sentence right after a block that says where it goes: "Put the target after `release-major`.", "Place
# `snapshot` after `install` so the help stays in order.", "Put this block after the `# Auth` section."
_PUT_WHERE = re.compile(r"^\s*(?:put|place|insert|add|keep)\s+(?:it|them|`[^`]+`|(?:this|these|the\s+(?:new\s+)?[\w-]+)"
                        r"(?:\s+(?:block|snippet|section|lines?|code|part|entry|entries|one|ones))?)\s+"
                        r"(?:right\s+|just\s+|directly\s+)?(?P<where>after|below|under|before|above)\s+(?:the\s+)?"
                        r"`(?:(?P<name>[\w.$:-]+)(?:\([^`]*\))?|#{1,6}\s+(?P<heading>[^`]{1,60}))`", re.IGNORECASE)
# ... or says so of "it" (or of "this", ending as a sentence does), whatever names the place: "Add it after the
# "rejects garbage" test, then run:", "Put `configureRateLimit()` at the bottom of the file, after ..."
_IT_GOES = re.compile(r"^\W*(?:(?:then|and|now)\s+)?(?:(?:put|place|insert|add|paste|move)\s+(?P<what>it|them|this|these|"
                      r"`[^`]+`)(?:\s+(?:block|snippet|code|methods?|functions?|tests?|helpers?|ones?))?|"
                      r"(?P<said>it|this|they|these)\s+(?:goes|go|belongs?|should\s+go))\s+(?:right\s+|just\s+|directly\s+)?"
                      r"(?=(?:after|below|under|before|above|between|at\s+the\s+(?:very\s+)?(?:end|bottom))\b)",
                      re.IGNORECASE)
# ... or that says which of the file's lines it replaces: "This replaces the existing
# `builder.Services.Configure<WeatherOptions>(...)` call."
_IT_REPLACES = re.compile(r"^\W*(?:this|that|it)\s+replaces\s+(?:the\s+)?(?:existing\s+|old\s+|current\s+)?"
                          r"`(?P<name>[^`\s(]+)(?:\([^`]*\))?;?`", re.IGNORECASE)


# a sentence after a block saying what it does not show stays: "The rest of the method stays the same."
_REST_STAYS = re.compile(r"\W*(?:the\s+)?rest\s+of\s+(?:the\s+|this\s+|that\s+)?(?:method|function|file|class|body|"
                         r"component|struct|module|block)\s+(?:stays|remains|is|can\s+stay)\s+(?:exactly\s+)?"
                         r"(?:the\s+same|unchanged|as\s+(?:it\s+)?(?:is|was))\b", re.IGNORECASE)


def _placed_by_what_follows(block: Block, prose: list[str]) -> Block:
    """A block placed by the sentence right after it, where the sentences before it placed it nowhere; Go
    packages that sentence says to add to the imports ("You'll need to add `"fmt"` to the imports in this file.")."""
    said = next((line for line in prose if line.strip()), "")
    if not block.go_imports and (packages := _go_imports_said(said, block)) and \
            not any(_names_file(word) and word != block.path for word in _BACKTICKED.findall(said)) and \
            not said.rstrip().endswith(":"):  # (not the next block's sentence: "3. Update `cmd/export.go`. Add ...:")
        block = replace(block, go_imports=packages)
    shown = [line for line in block.text.splitlines() if line.strip()]
    if _REST_STAYS.match(said) and shown and not is_marker(shown[-1]) and not block.is_patch:
        indent = shown[-1][:len(shown[-1]) - len(shown[-1].lstrip())]  # ("The rest of the method stays the
        block = replace(block, text=block.text + indent + "...\n")  # same." below the head of one: a marker)
    m = _PUT_WHERE.match(said)
    it = None if m else _IT_GOES.match(said)
    if it and (it["what"] or it["said"]).lower() not in ("it", "them") and \
            re.split(r"(?<=[.!?])\s+", said.strip())[0].rstrip().endswith(":"):
        it = None  # ("Put this after `x`:": the next block's sentence; not "This goes before `x`. Then run:")
    if it and it["what"] and it["what"].startswith("`") and _names_file(it["what"].strip("`")):
        it = None
    if (gone := _IT_REPLACES.match(said)) and block.path is not None and not block.replaces and \
            not block.is_patch and not _defines(block.text, gone["name"]):  # (a statement: a definition of that
        return replace(block, replaces=(gone["name"],))  # name shown anew is found by its name)
    if not (m or it) or block.after is not None or block.before is not None or block.path is None:
        return block
    if it:
        after, before = _place_named([_sentences(said[it.end():])[0]])  # (its sentence alone)
        near = _near_words(_NEAR_WORDS.search(said[it.end():])) if not (after or before) else None
        return replace(block, after=after, before=before, near_words=near) if after or before or near else block
    near, name = m["where"].lower() in ("after", "below", "under"), m["name"] or m["heading"]
    return replace(block, after=name if near else None, before=None if near else name)


_NEEDS_IMPORT = re.compile(r"\b(?:need|needs|add|adding|require|requires|import|missing)\b", re.IGNORECASE)


def _imports_said_after(block: Block, prose: list[str]) -> list[Block]:
    """The imports the sentence right after a block says its file needs ("You'll also need `import
    kotlinx.coroutines.CancellationException` in that file."), as a block of their own for that file; none where
    the sentence names another file, or the block has them already."""
    said = next((line for line in prose if line.strip()), "")
    spans = [span for span in _imports_said_added(said) if span not in block.text]
    if not spans or block.path is None or block.is_patch or not _NEEDS_IMPORT.search(re.sub(r"`[^`]*`", "", said)) or \
            any(_names_file(word) and word != block.path for word in _BACKTICKED.findall(said)):
        return []
    return [replace(block, text="".join(f"{span}\n" for span in spans), label=None, after=None, before=None,
                    into=None, whole=False, near_words=None, replaces=(), replaces_last=0)]


def _imports_said_added(said: str) -> list[str]:
    """The import lines a sentence quotes as ones to add: not those it removes ("delete `import java.util.List;`")
    nor those it places by ("Add these imports right before `import org.springframework.http.HttpStatus;`")."""
    gone = {m["head"].strip() for m in _IMPORT_REMOVAL.finditer(said)}
    return [m[1] for m in _IMPORT_SAID.finditer(said) if m[1].strip() not in gone and
            not _PLACE_BEFORE_QUOTE.search(said[:m.start()])]


_PLACE_BEFORE_QUOTE = re.compile(r"\b(?:before|after|above|below|under|beneath|following|preceding)\s*(?:the\s+)?"
                                 r"(?:existing\s+)?(?:line\s+)?$", re.IGNORECASE)


# "update the import:", "change the `config` import to:": one import line rewritten, not one more
_UPDATE_THE_IMPORT = re.compile(r"\b(?:update|change|fix|adjust)\s+(?:the|its|that)\s+(?:`[^`\n]+`\s+)?import"
                                r"(?:\s+(?:line|statement))?\b(?!s)", re.IGNORECASE)


_REPLACE_THE_IMPORTS = re.compile(r"\breplace\s+(?:the|all\s+the|your)\s+(?:existing\s+)?imports\b"
                                  r"(?:\s+at\s+the\s+top)?(?:\s+of\s+(?:the\s+file|`[^`\n]+`))?\s+with\b", re.IGNORECASE)


# "Add `"strings"` to the imports", "add `"encoding/csv"`, `"fmt"` and `"time"` to the imports in this file",
# "and add `"time"` to the test file's imports."
_GO_IMPORTS = re.compile(r"\badd(?:ing)?\s+(?P<paths>`\"[\w./-]+\"`(?:\s*(?:,|and|,\s*and)\s*`\"[\w./-]+\"`)*)\s+to\s+"
                         r"(?:the|your|this)\s+(?:test\s+)?(?:file's\s+)?imports?\b", re.IGNORECASE)

_GO_IMPORTS_NEEDED = re.compile(r"\b(?:needs?|requires?)\s+(?P<paths>`\"[\w./-]+\"`(?:\s*(?:,|and|,\s*and)\s*"
                                r"`\"[\w./-]+\"`)*)\s+(?:to\s+be\s+)?imported\b", re.IGNORECASE)  # ("(this one
# also needs `"time"` imported)")


def _go_imports_said_after(block: Block, prose: list[str]) -> Block:
    """A Go block with the packages the sentence right after it says to add to its file's imports ("and add
    `"time"` to the test file's imports.")."""
    said = next((line for line in prose if line.strip()), "")
    return replace(block, go_imports=tuple(dict.fromkeys(block.go_imports + _go_imports_said(said, block)))) \
        if not said.rstrip().endswith(":") and _go_imports_said(said, block) else block


def _go_imports_said(said: str, block: Block) -> tuple[str, ...]:
    """The Go packages a sentence says to add to a Go block's file's imports."""
    m = _GO_IMPORTS.search(said) or _GO_IMPORTS_NEEDED.search(said)
    if m is None or not (block.language == "go" or (block.path or "").endswith(".go")):
        return ()
    return tuple(re.findall(r"`\"([\w./-]+)\"`", m["paths"]))


def _goes_on(last: Block | Skipped | None, read: Block, prose: list[str]) -> bool:
    """Whether a block that names no file may go on in the file the block right before it named: the same
    language, and the prose between names no file, shows no use, output or alternative (it does where it holds
    lines of that file: ``answer_plan``; a use of the change in another file holds none)."""
    return isinstance(last, Block) and (last.path or last.goes_on) is not None and not last.is_patch and \
        not read.is_patch and not read.usage and read.language is not None and \
        (read.language == last.language or _embeds(last.path or last.goes_on, read.language)) and \
        read.language not in _SHELL and read.language not in _DATA and \
        not any(_path_named(line) or any(_names_file(w) for w in _BACKTICKED.findall(line)) for line in prose) and \
        not _OPTIONAL.search(_last_said(prose)) and not _shows_output(prose)


def _embeds(path: str, language: str) -> bool:
    """Whether a file of that kind holds code of that language in a section of its own (a Vue component's
    ``<style scoped>``, a Svelte component's ``<script>``)."""
    return path.lower().endswith((".vue", ".svelte", ".astro", ".html", ".htm")) and \
        language.lower() in ("css", "scss", "sass", "less", "js", "javascript", "ts", "typescript", "html")


# a sentence that says the file of the blocks below it: "All edits in this step are in `lib/blog/posts/post.ex`."
_ALL_IN = re.compile(r"\b(?:all|the\s+rest)\s+(?:of\s+)?(?:the\s+|these\s+|this\s+step's\s+)?(?:edits|changes)\b"
                     r"[^.`:]*?\b(?:are|go|happen|belong)\s+in\s+`(?P<path>[^`\s]+)`\s*[.:]?\s*$", re.IGNORECASE)


def _last_path(blocks: list[Block]) -> str | None:
    """The file prose after a block speaks of where it names none: the block's ("Also remove the `java.util.List`
    import here")."""
    return blocks[-1].path if blocks else None


def _is_heading(prose: list[str], k: int) -> bool:
    """Whether line k of the prose heads what follows: a markdown heading, or a path alone on its line (in bold,
    or bare, then a sentence: "`src/lib/types.ts`" then "Add the field after `createdAt`:")."""
    line = prose[k]
    return line.lstrip().startswith("#") or "".join(prose[k + 1:]).strip() != "" and (
        _PATH_LINE.match(line.strip()) is not None and (line.lstrip().startswith(("**", "__")) or
                                                       _path_named(line) is not None) or
        re.fullmatch(r"\s*(?:\d+[.)]\s+|[-+]\s+)?\*\*[^*]+\*\*:?\s*", line) is not None)
    # (a bold step, which may name the file: "**2. Update `app/NotesFragment.kt`**", "**Step 2: Create a DTO**",
    # "3. **Update `src/main.rs`**")


def _removals(prose: list[str], first: int, section: str | None = None, near: str | None = None) -> list[Removal]:
    """The removals the prose says to do: a sentence with a verb of removal, no condition or denial, naming
    definitions in backticks (and perhaps the file, in backticks, after "from" or "in").  ``section``: the file
    the heading above names, each removal's file where the sentence names none and more than one would do;
    ``near``, the file of the block above, the same for lines where no heading names one."""
    out: list[Removal] = []
    for number, line in enumerate(map(_unemphasized, prose), first + 1):
        if _is_heading(prose, number - first - 1):
            section = _path_named(prose[number - first - 1])
        start = len(out)
        for m in _GOES_AWAY.finditer(line):  # "The `PLATFORMS` array and the `Platform` import go away"
            sentence = m[0]
            if _NOT_DONE.search(sentence):
                continue
            names = [_REMOVED_NAME.match(span[1])["name"] for span in re.finditer(r"`([^`]+)`\s*(\w*)", m["what"])
                     if _REMOVED_NAME.match(span[1]) and not _names_file(span[1]) and
                     span[2].lower() in _DEFINITION_NOUNS | {"array", "list", "map", "object", "const", ""}]
            if names:  # (an import named so is the imports' to drop, not a definition)
                out.append(Removal(tuple(names), None, number, sentence.strip()))
        plain = re.sub(r"\s\((?!`)(?:[^()`]|`[^`\n]*`)*\)", "", line)  # (an aside in brackets: "the `legacyLogin` method
        # (including its Javadoc) and the private `md5Hex` helper", "the `legacyLogin` handler (the one mapped to
        # `/login/legacy`)")
        for m in _REMOVE.finditer(plain):
            sentence = plain[:m.end()]
            sentence = sentence[max(sentence.rfind(". "), sentence.rfind("; ")) + 1:]
            if _NOT_DONE.search(sentence):
                continue
            names, path, other, within = [], None, False, None
            spans = list(re.finditer(r"`([^`]+)`", m["what"]))
            said = sentence[:len(sentence) - len(m[0])]
            if not spans and re.match(r"[\s*_]*it\b", m["what"]):  # "`test_full_queue_rejects_push` tests the
                before = [t for t in _BACKTICKED.findall(said) if not _names_file(t)]  # old behaviour, so remove
                if len(before) == 1 and _REMOVED_NAME.match(before[0]) and \
                        _SO_THEN.search(said):  # it": the one name before "so" and the verb (not "a user can
                    # create "Apollo", delete it")
                    out.append(Removal((_REMOVED_NAME.match(before[0])["name"],), None, number, sentence.strip()))
                continue
            lead = m["what"][:spans[0].start()].split() if spans else []
            if len(lead) > 4 or any(word.lower() in _PREPOSITIONS for word in lead):
                continue  # "a bulk delete method on `Repo`": the word is a noun here
            for index, span in enumerate(spans):
                token = span[1].strip()
                ahead = m["what"][span.end():spans[index + 1].start() if index + 1 < len(spans) else None]
                word = (re.findall(r"[\w(]+", ahead) or [""])[0].lower()
                behind = m["what"][:span.start()].split()[-1:] or [""]
                if _names_file(token):
                    path = token
                elif word in ("import", "imports") or IMPORT_LINE.match(token):
                    continue  # (imports said gone: ``_imports_said_gone``'s)
                elif re.match(r"#\[|#!\[|@\w", token) or word.rstrip("s") in ("attribute", "annotation", "decorator"):
                    continue  # ("together with its doc comment and `#[deprecated]` attribute": the definition's own)
                elif behind[0].lower() in _PREPOSITIONS and token[:1].isupper() and _REMOVED_NAME.match(token):
                    within = _REMOVED_NAME.match(token)["name"]  # "from `Article`": the class that holds them
                elif behind[0].lower() in _PREPOSITIONS:
                    other = True  # "from `save`": a line inside a function, not a definition
                elif _REMOVED_NAME.match(token) and (not word or word in _DEFINITION_NOUNS):
                    names.append(_REMOVED_NAME.match(token)["name"])
                else:
                    other = True
            if path is None:  # "In `app/views.py`, delete ..."
                named = [t for t in _BACKTICKED.findall(sentence[:len(sentence) - len(m[0])]) if _names_file(t)]
                path = named[0] if len(named) == 1 else None
            if names and not other:
                out.append(Removal(tuple(names), path, number, sentence.strip(), within=within))
        for m in _LINE_REMOVAL.finditer(line):  # "Delete the `HEALTHCHECK` line from the Dockerfile"; "Remove the
            if not _NOT_DONE.search(line[:m.end()]):  # fixed `replicas: 3` line from `spec`" (a key: the one file)
                out.append(Removal((m["head"],), m["path"] if _names_file(m["path"]) else None, number, m[0],
                                   lines=True))
        for m in _LINES_REMOVAL.finditer(line):  # "delete the `console.log` lines at the top of `addItem` and
            # `removeItem`": each such line of those definitions (not again one the pattern above read)
            if not _NOT_DONE.search(line[:m.end()]) and \
                    not any(r.lines and r.line == number and r.names == (m["head"],) for r in out):
                paths = [t for t in _BACKTICKED.findall(line[:m.start()] + m["where"]) if _names_file(t)]
                inside = tuple(n for t in _BACKTICKED.findall(m["where"]) if not _names_file(t) and
                               (n := t.split("(")[0]) and _REMOVED_NAME.match(n))
                if not inside and (said := _IN_NAMED.search(line[:m.start()])) and not _names_file(said["name"]):
                    inside = (said["name"].split("(")[0],)  # ("In `charge`, delete both `console.log` lines")
                out.append(Removal((m["head"],), paths[-1] if paths else None, number, m[0], lines=True,
                                   inside=inside))
        for m in _LISTED_LINES_REMOVAL.finditer(line):  # "delete the `console.log("GET", url);` and
            if _NOT_DONE.search(line[:m.end()]):  # `console.log("search response", body);` lines from
                continue  # `searchProducts`": each, in that function
            paths = [t for t in _BACKTICKED.findall(line[:m.start()] + m["where"]) if _names_file(t)]
            inside = tuple(n for t in _BACKTICKED.findall(m["where"]) if not _names_file(t) and
                           (n := t.split("(")[0]) and _REMOVED_NAME.match(n))
            codes = [code.strip() for code in re.findall(r"`([^`\n]+)`", m["list"])]
            if all(re.search(r"\w\(.*\)\s*;?$", code) and not re.search(r"\.\.\.|\u2026", code) for code in codes):
                out += [Removal((code,), paths[-1] if paths else None, number, m[0], lines=True, inside=inside)
                        for code in codes if not any(r.names == (code,) for r in out)]  # (whole calls, each)
        if _SAYS_DELETE.match(line) and not _NOT_DONE.search(line.split(".")[0]):  # "Delete the `console.log(
            for m in _ELIDED_LINE.finditer(line.split(". ")[0]):  # "listing", ...)` line in the `GET /` handler and
                head = m["head"].strip()  # the `console.log("invalid payload", ...)` line in ...": each such line
                if not any(r.names == (head,) for r in out):
                    named = [t for t in _BACKTICKED.findall(line.split(". ")[0]) if _names_file(t)]
                    out.append(Removal((head,), named[0] if len(named) == 1 else None, number, m[0], lines=True))
        for m in _WITH_LINES.finditer(line):  # "delete the `X` test together with the `#pragma warning disable
            if _REMOVE.search(line[:m.start()]) and not _NOT_DONE.search(line[:m.end()]):  # CS0618` and ... lines
                named = [t for t in _BACKTICKED.findall(line[:m.start()]) if _names_file(t)]  # around it"
                out += [Removal((code,), named[-1] if named else None, number, m[0], lines=True)
                        for code in re.findall(r"`([^`\n]+)`", m["list"]) if not any(r.names == (code,) for r in out)]
        for m in _IMPORT_REMOVAL.finditer(line):  # "Also remove the now-unused `import x.HttpStatus;`"
            if not _NOT_DONE.search(line[:m.end()]):
                path = m["path"] if m["path"] and _names_file(m["path"]) else None
                out.append(Removal((m["head"].strip(),), path, number, m[0], lines=True))
        for m in _ATTRIBUTE_NOT_NEEDED.finditer(line):  # "It no longer needs `#[allow(deprecated)]`"
            if not _NOT_DONE.search(line[:m.end()]):
                out.append(Removal((m["attribute"],), None, number, m[0], lines=True))
        for m in _NAMED_IMPORT_REMOVAL.finditer(line):  # "`java.util.Arrays` is no longer used, so remove that
            if not _NOT_DONE.search(line[:m.end()]):  # import"; "remove the `java.util.Arrays` import"
                out.append(Removal((f"import {m['name'] or m['other'] or m['unused']}",), None, number, m[0],
                                   lines=True))
        said = {removal.names for removal in out if removal.lines and removal.line == number}
        out += [removal for removal in _imports_said_gone(line, number) if removal.names not in said]
        for m in _SECTION_REMOVAL.finditer(line):  # 'in `lua/config/autocmds.lua`, delete the whole "Format on
            sentence = line[:m.end()]  # save" autocmd'
            sentence = sentence[max(sentence.rfind(". "), sentence.rfind("; ")) + 1:]
            named = [t for t in _BACKTICKED.findall(sentence) if _names_file(t)]
            if not _NOT_DONE.search(sentence) and len(named) <= 1:
                out.append(Removal((m["title"] or m["comment"],), named[0] if named else None, number,
                                   sentence.strip(), section=True))  # (or by the comment: "the `-- LSP` section")
        for m in _ELEMENT_REMOVAL.finditer(line):  # 'Delete the whole `<details class="legacy-login">…</details>`
            sentence = line[:m.end()]  # block below the main form'
            if not _NOT_DONE.search(sentence[max(sentence.rfind(". "), 0):]):
                named = [t for t in _BACKTICKED.findall(sentence) if _names_file(t)]
                out.append(Removal((m["open"],), named[-1] if named else None, number, m[0], element=True))
        for m in _RULE_REMOVAL.finditer(line):  # "delete the `.search-bar button` rule from the component's styles"
            sentence = line[:m.end()]
            if not _NOT_DONE.search(sentence[max(sentence.rfind(". "), 0):]):
                out += [Removal((selector,), m["path"] if m["path"] and _names_file(m["path"]) else None, number,
                                m[0], rule=True) for selector in re.findall(r"`([^`\n]+)`", m["selectors"])]
        if _THESE_LINES_GO.search(line) and not _NOT_DONE.search(line):  # "Delete these four lines outright:"
            items = prose[number - first:]  # then a list, a line of code to each item
            for item in items[next((k for k, item in enumerate(items) if item.strip()), len(items)):]:
                code = re.fullmatch(r"\s*[-*+]\s+`([^`\n]+)`(?:[.,;:]?(?:\s+.*)?)\s*", item)
                # (a note after it: "- `print("get_order", order_id)` in `get_order`")
                if code is None:
                    break
                out.append(Removal((code[1].strip(),), None, number, line.strip(), lines=True))
        out[start:] = [replace(removal, under=section or (near if removal.lines else None)) for removal in out[start:]]
        # (the file of the block above, for a line: "The `java.util.List` import is now unused, so remove it too";
        # not for a definition two files define, which is left alone)
    return out


_THESE_LINES_GO = re.compile(r"\b(?:delete|remove|drop)\s+(?:these|the\s+following|those)\b[^:`]*\blines?\b[^:`]*:\s*$|"
                             r"\b(?:delete|remove|drop)\s+the\s+(?:two|three|four|five|six|\d+)\s+`[^`\n]+`\s+lines?\s*:\s*$|"
                             r"\b(?:delete|remove|drop)\s+(?:these|the\s+following|those|the)\s+(?:\w+\s+)?imports?\b"
                             r"[^:]*:\s*$", re.IGNORECASE)  # ("remove the imports that were only used by `x()`:")


def _imports_said_gone(line: str, number: int) -> list[Removal]:
    """The imports a sentence with a verb of removal names, wherever it names them: quoted whole ("delete the
    `legacyLogin` method (...) and the `import com.acme.dto.LegacyLoginRequest;` line"), by their dotted names
    after "imports" ("remove the now-unused imports at the top of `X.java`: `java.security.MessageDigest`, ..."),
    or by a package before "imports" ("the two `org.slf4j` imports": every one of it)."""
    out = []
    for sentence in _sentences(line):
        verb = re.search(r"\b(?:delete|remove|drop)\b", sentence, re.IGNORECASE)
        if verb is None or _NOT_DONE.search(sentence[:verb.end()]):
            continue
        said = sentence[verb.end():]
        paths = [t for t in _BACKTICKED.findall(sentence) if _names_file(t)]
        path = paths[0] if len(paths) == 1 else None
        listed = re.search(r"\bimports\b[^:]*:", said)
        for m in re.finditer(r"`([^`\n]+)`\s*(\w*)", said):
            code, word = m[1].strip(), m[2].lower()
            if IMPORT_LINE.match(code):
                out.append(Removal((code,), path, number, sentence.strip(), lines=True))
            elif re.fullmatch(r"[a-z]\w*(?:\.\w+)+", code) and not _names_file(code) and \
                    (word in ("import", "imports") or listed and m.start() > listed.start()):
                out.append(Removal((f"import {code}",), path, number, sentence.strip(), lines=True,
                                   every=word == "imports"))
        for m in _NAMES_THEN_IMPORTS.finditer(said):  # "remove the `LegacyLoginRequest` and `UserRepository`
            out += [Removal((name,), path, number, sentence.strip(), lines=True, imported=True)  # imports"
                    for name in re.findall(r"`@?([A-Za-z_]\w*)`", m[0])]
    for sentence in _sentences(line):  # "`MessageDigest`, `HexFormat` and `@Value` are no longer used."
        m = _NO_LONGER_USED.match(sentence)
        if m and not re.match(r"\W*(?:if|once|when|unless|after)\b", sentence, re.IGNORECASE):
            out += [Removal((name,), None, number, sentence.strip(), lines=True, imported=True)
                    for name in re.findall(r"`@?([A-Za-z_]\w*)`", m["what"])]
    return out


_LISTED_NAMES = r"(?:`@?[A-Za-z_]\w*`(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+or\s+))*`@?[A-Za-z_]\w*`"
_NAMES_THEN_IMPORTS = re.compile(_LISTED_NAMES + r"\s+imports?\b")
_NO_LONGER_USED = re.compile(r"\W*(?:the\s+)?(?P<what>" + _LISTED_NAMES + r")\s+(?:imports?\s+)?(?:is|are)\s+"
                             r"(?:now\s+)?(?:no\s+longer\s+(?:used|needed|referenced)|unused)\b", re.IGNORECASE)


_SECTION_REMOVAL = re.compile(r"\b(?:delete|remove|drop)\s+the\s+(?:whole\s+|entire\s+|old\s+|existing\s+)*"
                              r"(?:[\"\u201c](?P<title>[^\"\u201d\n]{3,80})[\"\u201d]|"
                              r"`(?:#+|//+|--+|;+)\s*(?P<comment>[^`\n]{2,80})`)\s+(?:autocmd|block|section|handler|"
                              r"hook|task|job|step|config|setting|part|keymap|mapping)s?\b", re.IGNORECASE)
_RULE_REMOVAL = re.compile(r"\b(?:delete|remove|drop)\s+the\s+(?:now[- ]unused\s+|unused\s+|old\s+)?"
                           r"(?P<selectors>" + _SPANS + r")\s+"
                           r"(?:CSS\s+)?(?:rules?|style\s+rules?|styles?|selectors?)\b(?:[^.`]*?`(?P<path>[^`\n]+)`)?",
                           re.IGNORECASE)  # ("Delete the old `.notice` and `.alert` rules at the bottom")


# Lines that go with a definition said to be deleted ("... test together with the `#pragma warning disable CS0618`
# and `#pragma warning restore CS0618` lines around it")
_WITH_LINES = re.compile(r"\b(?:together|along)\s+with\s+(?:the\s+)?(?P<list>" + _SPANS + r")\s+lines?\b",
                         re.IGNORECASE)
# A definition named right before the verb ("In `charge`, delete both `console.log` lines")
_IN_NAMED = re.compile(r"\bin\s+`(?P<name>[A-Za-z_$][\w$.]*(?:\(\))?)`,?\s*$", re.IGNORECASE)
# A sentence that starts by saying to delete, and a line it quotes in part, what follows elided: the quoted start
# of the line ("Delete the `console.log("listing orders for", ...)` line")
_SAYS_DELETE = re.compile(_OPENS + r"(?:delete|remove|drop)\b", re.IGNORECASE)
_ELIDED_LINE = re.compile(r"\bthe\s+`(?P<head>[^`\n]*?\w[^`\n]*?)\s*(?:\.\.\.|\u2026)[^`\n]*`\s+"
                          r"(?:line|call|statement)\b", re.IGNORECASE)
_ELEMENT_REMOVAL = re.compile(r"\b(?:delete|remove|drop)\s+the\s+(?:whole\s+|entire\s+|old\s+)?`(?P<open><(?P<tag>[\w-]+)"
                              r"[^`>]*>)\s*(?:\.\.\.|\u2026)?\s*</(?P=tag)>`", re.IGNORECASE)
_LINE_REMOVAL = re.compile(r"\b(?:delete|remove|drop)\s+the\s+(?:(?:old|fixed|now[- ]unused|unused|stale)\s+)?"
                           r"`(?P<head>[^`\n]+)`\s+(?:line|instruction|directive)\s+"
                           r"(?:from|in)\s+(?:the\s+|your\s+)?[*`]*(?P<path>[\w./-]*\w)", re.IGNORECASE)


# Every line that starts with the code quoted, said to go, perhaps from the definitions named after it: "delete
# the `console.log` lines at the top of `addItem` and `removeItem`", "remove all the `print(` calls in `main`"
_LINES_REMOVAL = re.compile(r"\b(?:delete|remove|drop|strip)\s+(?:all\s+)?(?:the|every|each|both(?:\s+the)?)\s+"
                            r"(?:remaining\s+|debug\s+)?`(?P<head>[^`\n]+)`\s+(?:lines?|calls?|statements?)\b"
                            r"(?P<where>[^.;:!?]*)", re.IGNORECASE)


# An import line quoted whole, said to go: of the file the sentence names, else of the one file the answer changes
# that has it (and no block of the answer shows it there)
# Lines quoted whole, two or more: "delete the `console.log("GET", url);` and `console.log("search response",
# body);` lines from `searchProducts`"
_LISTED_LINES_REMOVAL = re.compile(r"\b(?:delete|remove|drop)\s+(?:both\s+|the\s+)?(?:both\s+)?"
                                   r"(?P<list>`[^`\n]+`(?:\s*(?:,|and|,\s*and)\s*`[^`\n]+`)+)\s+"
                                   r"(?:lines|calls|statements)\b(?P<where>[^.;:!?]*)", re.IGNORECASE)
_IMPORT_REMOVAL = re.compile(r"\b(?:delete|remove|drop)\s+(?:the\s+)?(?:now[- ]unused\s+|unused\s+|old\s+|stale\s+)?"
                             r"`(?P<head>(?:import|using|use|from|require|#\s*include)\s[^`\n]+)`"
                             r"(?:[^.`\n]*?\b(?:from|in)\s+`(?P<path>[^`\n]+)`)?", re.IGNORECASE)


# An attribute, annotation or decorator a definition shown anew no longer needs: its line goes
_ATTRIBUTE_NOT_NEEDED = re.compile(r"\bno\s+longer\s+needs?\s+(?:the\s+|its\s+)?`(?P<attribute>#!?\[[^`\n]+\]|@\w[^`\n]*)`",
                                   re.IGNORECASE)
# An import named by its dotted path, said to go (Java's, Kotlin's, Scala's: ``import java.util.Arrays;``)
_NAMED_IMPORT_REMOVAL = re.compile(r"`(?P<name>[a-z]\w*(?:\.\w+)+)`[^.`]*?\b(?:remove|delete|drop)\s+(?:that|the|this|its)\s+"
                                   r"import\b|\b(?:remove|delete|drop)\s+the\s+(?:now[- ]unused\s+|unused\s+)?"
                                   r"`(?P<other>[a-z]\w*(?:\.\w+)+)`\s+import\b|"
                                   r"`(?P<unused>[a-z]\w*(?:\.\w+)+)`\s+import\s+is\s+(?:now\s+)?(?:unused|no\s+longer\s+"
                                   r"(?:used|needed))[^.`]*?\b(?:remove|delete|drop)\s+it\b", re.IGNORECASE)
# ("The `java.util.List` import is now unused, so remove it too.")


# A TOML or INI table a sentence puts the block's keys in: "Add `thiserror` to the `[dependencies]` in `Cargo.toml`"
_TABLE_SAID = re.compile(r"\b(?:to|in|under|into)\s+(?:the\s+|your\s+)?`(?P<table>\[[\w.\-\"]+\])`")


def _table_said(said: str) -> str | None:
    m = _TABLE_SAID.search(said)
    return m["table"] if m else None


# A line of the file a block marks for removal: ``import x.DeleteMapping; // remove this line``, Lua's
# ``-- delete: local group = ...`` (not ``os.remove(tmp)  # remove``, a comment on what the code does)
_GONE_MARK = re.compile(r"^\s*(?:(?P<code>\S.*?)\s*(?://|#|--)\s*(?:remove|delete|drop)\s+this(?:\s+line)?\.?|"
                        r"(?://|#|--)\s*(?:remove|delete|drop):\s*(?P<said>\S.*?))\s*$", re.IGNORECASE)


def _lines_marked_gone(text: str) -> list[str]:
    """The file lines a block marks for removal, as the code they hold."""
    return [(m["code"] or m["said"]).strip() for line in text.splitlines() if (m := _GONE_MARK.match(line))]


def _renames_one_test(text: str, title: str) -> bool:
    """Whether a block opens with a test called by its title, and none of its tests has the title of the one a
    sentence says it replaces (``test('subtotalCents ...', () {`` for "replace the `'totalCents sums all lines'`
    test with:"): that test renamed, found by its old title."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return False
    depth = min(len(line) - len(line.lstrip()) for line in lines)
    heads = [line for line in lines if len(line) - len(line.lstrip()) == depth]
    titled = [line for line in heads if re.match(r"""\s*[\w$.]+\(\s*["'`]""", line)]
    return bool(titled) and lines[0] == titled[0] and \
        not re.search(rf"""["'`]{re.escape(title.strip("`")[1:-1])}["'`]""", text)


_PROGRAMMING = {name for name in EXTENSIONS if name not in ("json", "yaml", "yml", "toml", "html", "css", "scss", "sql")}
# files that hold code of other languages too, or are not code of one: a block of any language may be theirs
_MIXED_EXTENSIONS = {"html", "htm", "css", "scss", "sass", "less", "json", "jsonc", "yaml", "yml", "toml", "ini", "cfg",
                     "conf", "env", "xml", "md", "mdx", "rst", "txt", "vue", "svelte", "erb", "ejs", "hbs", "j2", "jinja",
                     "plist", "properties", "csproj", "xaml", "cshtml", "razor", "tscn", "gradle", "cmake", "sql", "sh",
                     "bash", "zsh", "ps1", "tf", "tfvars", "hcl", "nix", "prisma", "proto", "graphql", "el", "vim"}
_FAMILIES = ({"js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx"}, {"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx"})


def _foreign_code(language: str | None, path: str) -> bool:
    """Whether a block is code of one programming language and the file of another (a ```python`` example under a
    ``WeatherService.swift`` heading): not that file's."""
    lowered, extension = (language or "").lower(), path.rsplit(".", 1)[-1].lower() if "." in path else ""
    known = _CODE_EXTENSIONS - _MIXED_EXTENSIONS
    return lowered in _PROGRAMMING and extension in known and extension not in EXTENSIONS[lowered] and \
        not any(extension in family and EXTENSIONS[lowered] <= family for family in _FAMILIES)


def _program_file(path: str) -> bool:
    """Whether a path is a source file of one programming language (``main.go``; not a script, a Makefile or a
    README, which may hold commands)."""
    name = re.split(r"[/\\]", path)[-1]
    extension = name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""
    return extension in _CODE_EXTENSIONS - _MIXED_EXTENSIONS


def _code_of(language: str | None, path: str) -> bool:
    """Whether a block is code in its file's own programming language (```php`` for a ``.php``): a file, never
    what commands print (which may be JSON, YAML, HTML or rows, whatever file the sentence names)."""
    lowered = (language or "").lower()
    return lowered not in _DATA and lowered not in ("html", "css", "scss", "sql") and \
        path.rsplit(".", 1)[-1].lower() in EXTENSIONS.get(lowered, ())


def _output_of(last: Block | Skipped | None, prose: list[str]) -> bool:
    """Whether a block that names no file shows what the commands of the block before print (a response body
    after a ``curl``): it follows them with a line of prose at most ("Response:")."""
    return isinstance(last, Skipped) and last.reason.startswith("commands") and \
        sum(1 for line in prose if line.strip()) <= 1


def _in_passing(prose: list[str]) -> bool:
    """Whether the prose line that names a block's file is a sentence about something else ("With a bad value
    in `.env` it fails at startup:"), not a line given to the path, a heading or a bold line."""
    line = next((line.strip() for line in reversed(prose) if line.strip()), "")
    return not line.startswith(("#", "**", "__")) and not _PATH_LINE.match(line) and not _EDIT_STEP.match(line)


# A line that gives a step of the change in a file: "1. Update `internal/billing/stripe.go`:", "Now edit `x.ts`:"
_EDIT_STEP = re.compile(r"^(?:\d{1,2}[.)]\s+|[-*+]\s+)?(?:(?:then|now|next|finally),?\s+)?(?:update|modify|change|edit|"
                        r"create|add\s+(?:this\s+)?to|replace|open|(?:a\s+)?new\s+file)\b.*:$", re.IGNORECASE)


def _closing(lines: list[str], opening: int, fence: str) -> int:
    """The closing fence's index: the same character, at least as long, nothing after it; the answer's end if
    none (a chat answer cut off mid-block still holds the block)."""
    closer = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
    for index in range(opening + 1, len(lines)):
        if closer.match(lines[index].rstrip("\r\n")):
            return index
    return len(lines)


def _dedent(line: str, indent: int) -> str:
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, indent):]


def _read_block(info: str, body: list[str], prose: list[str], line: int,
                script: str | None = None) -> list[Block | Skipped]:
    citation = _CITATION.match(info)
    if citation:  # Cursor's ```12:15:src/app.py: lines of a file quoted, not changed
        return [Skipped(line, None, f"a quote of lines {citation[1]}-{citation[2]} of {citation[3]}, not a change")]
    language, info_path = _read_info(info)
    if looks_like_codex_patch("".join(body)):
        return _read_codex_patch(body, line)
    if language in _PATCH or (language is None and looks_like_patch("".join(body))):
        return _read_patch(body, info_path, prose, line)
    if looks_like_search_replace("".join(body)):
        return _read_search_replace(language, body, info_path, prose, line)
    parts = _files_in_one_block(body) if info_path is None else []
    if len(parts) > 1:  # ``// src/a.ts`` ... then, after a blank line, ``// src/b.ts`` ...: a block per file
        return [b for part in parts for b in _read_block(info, part, [], line)]
    read = _read_code(language, info_path, body, prose, line, script)
    if not isinstance(read, Block):
        return [read]
    after, before = _place_named(prose)
    if after is None and before is None and read.path and _SETTINGS_FILE.search(read.path) and \
            (section := _AFTER_SETTINGS.search(_last_said(prose))):
        after = section["words"]  # ("right after the database settings": the ``# Database`` section)
    in_code = _NEAR_CODE.search(_last_said(prose)) if after is None and before is None else None
    if after is None and before is None and in_code is None and (two := _BETWEEN_CODE.search(_last_said(prose))):
        before = two["second"]  # ("between the `@Transactional` annotation and `public Product updatePrice(`")
    if after is None and before is None and in_code is None and (line_said := _NEAR_LINE.search(_last_said(prose))):
        code = line_said["code"]
        if len(start := re.split(r"\.\.\.|\u2026", code)[0].rstrip()) >= 6 and start != code:
            code = start  # (its start, what follows elided: "below the `bp = Blueprint(...)` line")
        after, before = (None, code) if line_said["where"].lower() in ("before", "above") else \
            (code, None)  # (a line by its code: the merge finds the one that starts with it)
    in_words = (_NEAR_WORDS.search(_last_said(prose)) or _BETWEEN_WORDS.search(_last_said(prose))) \
        if after is None and before is None and in_code is None else None
    if after is None and before is None and read.named_by == "first line":
        after, before = _placed_by_first_line(body)
    placed = _PLACE_COMMENT.match(read.text)
    if placed and after is None and before is None:  # ("# Add after send_payment_failed()": said to the reader,
        text = read.text[placed.end():].lstrip("\r\n")  # not a line of the file)
        if text.strip():
            read = replace(read, text=text)
            name, near = placed["name"], placed["where"].lower() in ("after", "below")
            after, before = (name, None) if near else (None, name)
    read = replace(read, text=_without_import_notes(read.text))
    said = _last_said(prose)
    said_imports = [span for span in _imports_said_added(said) if span not in read.text and
                    not re.search(r"\.\.\.|\u2026", span)] \
        if _ADD_AN_IMPORT.search(said) else []
    extra = [replace(read, text="".join(f"{span}\n" for span in said_imports), label=None)] if said_imports else []
    read = replace(read, go_imports=_go_imports_said(said, read))
    after, before = (re.sub(r"^([\w.$:]+)\(\)$", r"\1", side) if side else side for side in (after, before))
    # (``Player:jump()``: the method's name)
    return extra + _split_where_said(replace(read, after=after, before=before, whole=_says_whole_file(prose),
                                             below_imports=_BELOW_IMPORTS.search(said) is not None,
                                             lines=_line_range(info) if read.named_by == "info" else None,
                                             usage=_shows_usage(prose, body), adds=_ADDS_TO.search(said) is not None,
                                             add_said=_ADD_THIS.match(said) is not None,
                                             removes=_REMOVE_SHOWN.match(said) is not None,
                                             updates_import=_UPDATE_THE_IMPORT.search(said) is not None,
                                             imports_replaced=_REPLACE_THE_IMPORTS.search(said) is not None,
                                             into=_class_named(prose) or _end_of_named(said) or _table_said(said),
                                             inside=_inside_named(said), near_words=_near_words(in_words),
                                             near_code=_near_code(in_code)))


# A comment above imports saying they are the new ones ("// New imports", "# add these imports"): said to the
# reader, not a line of the file
_IMPORTS_NOTE = re.compile(r"[ \t]*(?:#|//|--)[ \t]*\(?(?:new|add(?:ed)?|additional|extra|more|needed|required|missing)"
                           r"\b[^\n]{0,30}?\bimports?\b[^\n]{0,30}$", re.IGNORECASE)


def _without_import_notes(text: str) -> str:
    """A block's text without the comments that say the imports right below them are new."""
    lines = text.splitlines(keepends=True)
    notes = [k for k, line in enumerate(lines) if _IMPORTS_NOTE.match(line.rstrip("\r\n")) and
             IMPORT_LINE.match(next((later for later in lines[k + 1:] if later.strip()), ""))]
    return "".join(line for k, line in enumerate(lines) if k not in notes) if notes else text


def _split_where_said(block: Block) -> list[Block]:
    """A block whose comment between two fragments says where the second goes (``# next to format_money/2:``,
    ``// below `handleSubmit`:``): the second a block of its own, placed there."""
    lines = block.text.splitlines(keepends=True)
    for k in range(1, len(lines) - 1):
        said = _GOES_NEXT_TO.match(lines[k])
        if said and "".join(lines[:k]).strip() and "".join(lines[k + 1:]).strip():
            near = said["where"].lower() not in ("above", "before")
            rest = replace(block, text="".join(lines[k + 1:]).lstrip("\r\n"), whole=False,
                           after=said["name"] if near else None, before=None if near else said["name"])
            first = lines[:k]
            while not first[-1].strip():
                first.pop()
            return [replace(block, text="".join(first))] + _split_where_said(rest)
    return [block]


def _files_in_one_block(body: list[str]) -> list[list[str]]:
    """A block whose first line names a file and which names others the same way further down, each after a
    blank line (several files in one fence): its parts, one per file; else the block alone."""
    first = _naming_first_line(body)
    if first is None:
        return [body]
    starts = [0] + [k for k in range(2, len(body)) if not body[k - 1].strip()
                    and (path := _naming_first_line(body[k:k + 1])) is not None and path != first
                    and not body[k][:1].isspace()]  # (at the left edge, as the first)
    return [body[a:b] for a, b in zip(starts, starts[1:] + [len(body)])]


_INSIDE = re.compile(r"\b(?:in|inside|within)\s+(?:the\s+)?(?:existing\s+)?`(?P<name>[A-Za-z_][\w.]*)(?:\([^`]*\))?`",
                     re.IGNORECASE)  # ("In `Resolve`, check expiry ...")


# "two new entries at the end of the `StyleSheet.create` call", "at the end of the `routes` array"
_END_OF_NAMED = re.compile(r"\bend\s+of\s+(?:the\s+|your\s+)?`(?P<name>[A-Za-z_$][\w.$]*)(?:\(\))?`\s+"
                           r"(?:call|object|array|list|map|dict|dictionary|hash|literal|config)\b", re.IGNORECASE)


def _end_of_named(said: str) -> str | None:
    """The call or literal a sentence says new entries go at the end of, by name."""
    m = _END_OF_NAMED.search(said)
    return m["name"] if m else None


def _inside_named(said: str) -> str | None:
    """The definition a sentence says a change is in ("Then in `Fire()` swap the `Instantiate` line:"), not a
    file ("in `views.py`")."""
    m = next((m for m in _INSIDE.finditer(said) if not _names_file(m["name"])), None)
    return m["name"].rsplit(".", 1)[-1] if m else None


_DOTFILE = re.compile(r"\.env(?:\.[\w-]+)?|\.\w*(?:ignore|rc|config|attributes|modules|versions)|\.nvmrc|\.htaccess|"
                      r"\.flake8|\.mailmap")  # named bare in a sentence


_TO_SECTION = re.compile(r"\b(?:to|in|into|under)\s+the\s+(?:[\"\u201c]|\*\*|`)(?P<name>[^\"\u201d*`\n]{1,40})"
                         r"(?:[\"\u201d]|\*\*|`)\s+section\b", re.IGNORECASE)


def _class_named(prose: list[str]) -> str | None:
    """The class the sentence before a block puts its methods in: a name in backticks after "to", "in" or
    "into", called a class or starting with a capital ("to `Order`"), in a sentence about a method; or the
    section it puts lines in ('Add it to the "Output" section of `requirements.txt`:')."""
    said = _last_said(prose)
    if section := _TO_SECTION.search(said):
        return section["name"].strip()
    if not re.search(r"\b(?:method|function|handler|member|getter|setter|test|case|spec|propert(?:y|ie)|field|"
                     r"constructor|initializer|helper)s?\b", said, re.IGNORECASE):
        m = _INTO.search(said)  # ("In the `candidateFiles` suite:")
        return m["name"] if m and m["name"] and (m["kind"] or "").lower() in ("suite", "describe", "context") else None
    for m in _INTO.finditer(said):
        if m["title"]:
            return m["title"]
        if m["kind"] or m["mod"] or m["name"][0].isupper():  # (Rust's "inside the existing `mod tests`")
            return m["name"]
    return None


def _line_range(info: str) -> tuple[int, int] | None:
    """The file lines an info string says its block stands for (``go internal/x.go (48-52)``), or None."""
    m = _LINE_RANGE.search(info)
    if m is None:
        return None
    first = int(m["first"] or m["a"] or m["c"])
    last = int(m["last"] or m["b"] or m["d"] or first)
    return (first, last) if 0 < first <= last else None


def _read_patch(body: list[str], info_path: str | None, prose: list[str], line: int) -> list[Block | Skipped]:
    """A diff block: one block per file its ``---``/``+++`` lines name, else one for the file the answer names
    the usual ways."""
    parts = patch_files("".join(body))
    if not parts:
        return [Skipped(line, "diff", "a diff whose lines are not all context, added or removed: nothing to apply")]
    first = _naming_first_line(body)
    named = info_path or first or _path_before(prose)
    how = "info" if info_path else "first line" if first else "line before" if named else None
    return [Block(text, path or named, "diff header" if path else how, "diff", line) for path, text in parts]


def _read_codex_patch(body: list[str], line: int) -> list[Block | Skipped]:
    """OpenAI's ``apply_patch`` envelope: a diff block per file it updates, a whole new file per file it adds;
    a file it deletes or moves is a block apply cannot do, said so (the answer is then not applied whole)."""
    blocks: list[Block | Skipped] = []
    for action, path, text in codex_patch_files("".join(body)):
        if action == "update":
            blocks.append(Block(text, path, "diff header", "diff", line))
        elif action == "add":
            blocks.append(Block(text, path, "diff header", None, line))
        else:
            what = "deletes" if action == "delete" else f"moves to {text.strip()}"
            blocks.append(Block("", path, "diff header", None, line,
                                cannot=f"the answer {what} {path}: apply changes and creates files, it does not "
                                       f"delete or move them; do that yourself"))
    return blocks


def _read_search_replace(language: str | None, body: list[str], info_path: str | None, prose: list[str],
                         line: int) -> list[Block | Skipped]:
    """A block of SEARCH/REPLACE sections: one block per file, named by a path alone on a line above its
    sections inside the block (Aider's fenced form), else the way any block names its file."""
    named = info_path or _naming_first_line(body) or _path_before(prose)
    how = "info" if info_path else "first line" if _naming_first_line(body) else "line before" if named else None
    parts: list[tuple[str | None, str | None, list[str]]] = []
    for section in parse_sections("".join(body), looks_like_path):
        path, by = (section.path, "first line") if section.path else (named, how)
        text = ["<<<<<<< SEARCH"] + list(section.search) + ["======="] + list(section.replace) + [">>>>>>> REPLACE"]
        if parts and parts[-1][0] == path:
            parts[-1][2].extend(text)
        else:
            parts.append((path, by, text))
    return [Block("".join(t + "\n" for t in text), path, by, language, line, search_replace=True)
            for path, by, text in parts]


def _read_code(language: str | None, info_path: str | None, body: list[str], prose: list[str],
               line: int, script: str | None = None) -> Block | Skipped:
    """A block's file and text; ``script``, the file the block before named, which a shell block naming none
    may go on in where that file is a shell script and the prose says no command is run."""
    named_by = "info" if info_path else None
    path = info_path
    first = _naming_first_line(body)
    prologue = []
    if first is None and body and _PROLOGUE.match(body[0]) and _naming_first_line(body[1:]):
        prologue, body = body[:1], body[1:]  # ('use client'; then // src/app/page.jsx): the file's line stays
        first = _naming_first_line(body)
    named = (path or _path_before(prose)) if first is not None else None
    if named is not None and named.endswith("/" + first.lstrip("./")):
        first = None  # ("#### `db/migrations/0004_x.sql`" above ``-- 0004_x.sql``, or ```` ```sql:db/migrations/
        # 0004_x.sql ````: the file's own header comment)
    label = None
    if first is not None:
        label = body[0] if path is not None else None  # (named twice: the line may be the file's own header)
        body = body[1:]
        while body and not body[0].strip() and not prologue:  # the blank line that sets the label apart is
            body = body[1:]  # not the file's (after a directive above the label, it is)
        if path is None:
            path, named_by = first, "first line"
    body = prologue + body
    existing = False
    if path is None:
        path = _path_before(prose)
        named_by = "line before" if path else None
        said = _last_said(prose)
        existing = path is not None and (_IN_FILE.search(said) is not None or _CHANGE_IN.search(said) is not None) \
            and path in said and not _CREATES.search(said)
        if path is not None and language in _SHELL and _code_file(path) and \
                not (language in _PLAIN and path.lower().endswith(_TEXT_FILES)):  # (```text under requirements.txt)
            path = named_by = None  # "`main.go` needs no change; run:" then ```sh: commands, not main.go
        if path is not None and language in _SHELL and _RUN_THERE.search(said):
            path = named_by = None  # "Run this from the `src/Catalog.Api` folder:": where commands run
        if path is not None and language in _SHELL and re.fullmatch(r"(?:.*/)?\.env(?:\.[\w-]+)?", path) and \
                any(line.strip() and not line.lstrip().startswith("#") and
                    not re.match(r"\s*(?:export\s+)?[A-Za-z_][\w.]*=", line) for line in body):
            path = named_by = None  # ("... into your real `.env` and clear the config cache:", ``php artisan
            # config:clear``: commands, not lines of ``.env``)
    if language in _NOT_CODE and path is None:
        return Skipped(line, language, _NOT_CODE[language])
    if language in ("vim", "viml", "vimscript") and all(text.lstrip().startswith(":") for text in body if text.strip()) \
            and not re.search(r"(?:\.vim|vimrc)$", path or ""):
        return Skipped(line, language, "what to type in the editor (\":Lazy profile\"), not a file")
    if path is None and _goes_on_in_script(script, language, body, prose):
        return Block("".join(body), None, None, language, line, goes_on=script)  # ("And replace the upload
        # section at the end of the script:" after a block of ``scripts/backup.sh``: there, if it holds its lines)
    if path is None and language in _SHELL:
        return Skipped(line, language, "commands or their output, not a file")
    if language is None and _looks_like_commands(body) and \
            (path is None or named_by == "line before" and _program_file(path)):
        return Skipped(line, None, "commands, not a file")  # (not lines of the ``main.go`` the sentence names:
        # "Nothing in `cmd/app/main.go` needs to change ... Run the tests with:" and ``go test ./...``)
    if not "".join(body).strip():
        return Skipped(line, language, "an empty block")
    return Block("".join(body), path, named_by, language, line, existing=existing, label=label)


def _read_info(info: str) -> tuple[str | None, str | None]:
    """(language, path) from a fence's info string: ``python src/app.py``, ``ts:src/app.ts``, ``src/app.py``,
    ``python title="src/app.py"``, ``{.python file=src/app.py}``."""
    if not info:
        return None, None
    attribute = _INFO_ATTRIBUTE.search(info)
    words = info.strip("{}").split()
    head = words[0].lstrip(".") if words else ""
    if ":" in head and not head.endswith(":"):
        language, _, rest = head.partition(":")
        if looks_like_path(rest):
            return language.lower() or None, rest
    if attribute and looks_like_path(attribute["path"]):
        language = head.lower() if head and "=" not in head and not looks_like_path(head) else None
        return language, attribute["path"]
    if looks_like_path(head):
        return None, head
    language = head.lower() or None
    for word in words[1:]:
        word = _PATH_WITH_RANGE.sub("", word.strip("\"'()[]{}"))  # ``(src/app.py)``, ``src/app.py#L10-20``
        if "=" not in word and looks_like_path(word):
            return language, word
    return language, None


# "Replace `a` and `b` at the end of ...:", "replace the `x`, `y` and `z` tests with:"
# "replace the `SAMPLE_INTERVAL` and `STATUS_LED` lines:": the file's lines of those names are what the block's
# new lines take the place of
_REPLACE_LINES = re.compile(r"\b(?:replace|swap)s?\s+(?:the\s+)?(?:existing\s+|old\s+|current\s+|inline\s+)?"
                            r"(?P<names>`[^`\n]+`(?:\s*(?:,|and|,\s*and)\s*(?:the\s+)?`[^`\n]+`)*)\s+"
                            r"(?:lines?|settings?|entries|entry|keys?|values?|variables?|instructions?|fields?|"
                            r"propert(?:y|ies)|constants?)\b|"
                            r"\b(?:replace|swap)\s+the\s+(?:existing\s+|old\s+|inline\s+)?(?P<path>`/[^`\s]*`)\s+"
                            r"(?:route|endpoint|handler)\b|"  # ("replace the inline `/health` route": by its path)
                            r"\b(?:replace|swap)\s+the\s+(?:existing\s+|old\s+)?(?P<title>`(?P<quote>[\"'])[^`\n]+(?P=quote)`)\s+"
                            r"(?:test|spec|case|example)\b|"  # ("replace the `'totalCents sums all lines'` test")
                            r"\((?:it\s+is\s+|it's\s+)?currently\s+(?P<now>`[^`\n]+`)\)|"  # ("change the effect's
                            # dependency array (currently `}, [range]);`) so ...:": that line
                            r"\b(?:replace|swap)\s+the\s+(?:existing\s+|old\s+)?`(?P<tag><[\w.:-]+)[^`]*`\s+"
                            r"(?:element\s+|tag\s+)?(?:for|with)\b",  # ("swap the `<span>` for an edit form")
                            re.IGNORECASE)
# "Replace the two commented-out Redis lines (`# Use Redis ...` and `# gem "redis"`) with:": the lines listed after
_REPLACE_LINES_LISTED = re.compile(r"\b(?:replace|swap)\s+the\s+(?:[\w-]+\s+){0,4}?lines?\s*\("
                                   r"(?P<names>" + _SPANS + r")\)\s+with\b|"
                                   # "Replace the line that calls `pool.Run(ctx)` with:", "replace the first line of
                                   # the `combine(...)` call": the one line holding that code
                                   r"\b(?:replace|update|change)\s+the\s+(?:first\s+)?line\s+(?:that\s+[a-z]+s|of)\s+"
                                   r"(?:the\s+)?(?P<code>`[^`\n]*[(\s][^`\n]*`)",
                                   re.IGNORECASE)
# "replace `final client = WeatherClient();` in `main` with:": a line of code quoted whole (not a name)
_REPLACE_CODE = re.compile(r"\b(?:replace|swap)\s+(?:the\s+)?(?:whole\s+|entire\s+|single\s+|existing\s+)?(?:line\s+)?"
                           r"`(?P<code>[^`\n]*\w[^`\n]*[\s=;][^`\n]*)`(?:\s+(?:line|declaration|definition|block|"
                           r"option|setting|entry|call))?(?:\s+(?:in|of|inside)\s+(?:the\s+)?`[^`\n]+`(?:\s+\w+)?)?"
                           r"\s+with\b",
                           re.IGNORECASE)
# "replace the last two lines with:": of the file
_REPLACE_LAST_LINES = re.compile(r"\breplace\s+the\s+(?:file'?s\s+)?last\s+(?:(?P<count>\d+|two|three|four|five|six)"
                                 r"\s+lines|line)\b", re.IGNORECASE)
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_REPLACE_THESE = re.compile(r"\breplace\s+(?:the\s+)?(?:existing\s+)?(?P<names>`[^`]+`(?:\s*(?:,|and|,\s*and)\s*"
                            r"(?:the\s+)?`[^`]+`)+)", re.IGNORECASE)


_BELOW_IT = re.compile(r"(?<!\beverything )(?<!\banything )(?<!\ball )(?<!\bwhat comes )"
                       r"\b(?:after|below|beneath|under|underneath)\s+(?:it|that|this)(?:\s+one)?"
                       r"(?:\s+in\s+`[^`\s]+`)?\s*[:.,]",  # ("right below it in `tests/test_api.py`:")
                       re.IGNORECASE)  # (not "replace everything after it:", which says what is replaced)


def _last_defined(text: str) -> str | None:
    """The name of the last definition a block shows: what "right below it" in the next sentence names."""
    keys = [line_key(line) for line in text.splitlines()]
    defined = definitions_in(keys)
    return defined[max(defined)] if defined else None


def _defines(text: str, name: str | None) -> bool:
    """Whether a block's text declares ``name`` (``func loadPage(``, ``def load_page(``), not only calls it;
    with no name, whether it declares anything."""
    named = re.escape(name.split('.')[-1]) if name else r"[A-Za-z_]\w*"
    return re.search(rf"\b(?:func|def|fn|function|fun|void|public|private|protected|static|async)\b"
                     rf"(?:\s*\([^()\n]*\))?[^\n(]*"  # (Go's receiver: ``func (b *Book) validateTransfer(``)
                     rf"\b{named}(?:\s*[(<]|[ \t]*$)", text, re.MULTILINE) is not None or \
        re.search(rf"^\s*{named}\s*\(\)\s*\{{", text, re.MULTILINE) is not None  # (Ruby's ``def display_name``; a
    # shell function, ``create_archive() {``)


# Where a note on the first line naming the file puts the block: ``// lib/mailer.ts (add below sendWelcome)``
_NOTE_PLACE = re.compile(r"\b(?P<where>after|below|under|before|above)\s+(?:the\s+)?`?(?P<name>[A-Za-z_$][\w$.]*)(?:\(\))?`?"
                         r"\s*$", re.IGNORECASE)


def _placed_by_first_line(body: list[str]) -> tuple[str | None, str | None]:
    """(after, before) as a note on the block's first line naming its file says, else (None, None)."""
    m = _NAMING_LINE.match(body[0].rstrip("\r\n")) if body and _naming_first_line(body) else None
    place = _NOTE_PLACE.search(m["note"] or m["aside"] or "") if m else None
    if place is None:
        return None, None
    near = place["where"].lower() in ("after", "below", "under")
    return (place["name"], None) if near else (None, place["name"])


def _naming_first_line(body: list[str]) -> str | None:
    """The path a block's first line names, as a comment holding a path (with an optional ``File:`` label)."""
    if not body:
        return None
    first = body[0].rstrip("\r\n")
    if first.lstrip().startswith(("#!", "#include", "#define", "#import", "#pragma", "# -*-")):
        return None
    m = _NAMING_LINE.match(first)
    if not m or not (looks_like_path(m["path"]) or m["label"] and re.fullmatch(r"\.?\w[\w.-]*", m["path"])):
        return None  # (a label says a bare name is a file: ``# File: crontab``)
    return m["path"]


# A sentence that says to change the file, in its first words ("Add it to the children list, after `X`:"), not
# one that shows a use ("You can now call it from anywhere, for example:")
_CHANGE_SAID = re.compile(_OPENS + r"(?:add|replace|change|update|insert|"
                          r"put|append|remove|delete|register|wire|modify|extend|swap|define|declare|include|edit|"
                          r"rewrite|move|rename|import|give|mount|expose|set|(?:inside|in|within)\s+(?:the\s+)?`)\b",
                          re.IGNORECASE)


def _path_before(prose: list[str]) -> str | None:
    """The path the last prose line before the fence names (one blank line may stand between them), else the
    one a heading above it names, in the prose since the block before (``### 2. `src/app.py` ``, then a
    sentence, then the block)."""
    lines = [line.rstrip("\r\n") for line in prose]
    while lines and not lines[-1].strip():
        lines.pop()
        if len(prose) - len(lines) > 1:
            return None
    if not lines:
        return None
    named = _path_named(lines[-1])
    if named is not None:
        return named
    above = [line for line in lines[:-1] if line.strip()]
    if above and lines[-1].rstrip().endswith(":") and (len(lines[-1].split()) <= 6 or above[-1].lstrip().startswith(
            ("**", "__")) and _CHANGE_SAID.match(lines[-1]) and not _FOR_EXAMPLE.search(lines[-1]) and
            not any(_names_file(w) for w in _BACKTICKED.findall(lines[-1]))) and \
            not _BACKTICKED.sub("", lines[-1]).strip().lower().startswith(("run", "then run", "output", "example")):
        label = above[-1].strip()  # ("**File:** `src/Service/Notifier.php`", then "New imports:" above the block;
        # a bold path, then a longer sentence that names no file: "Add it to the children list, after `X`:")
        if label.startswith(("**", "__", "#")) and (named := _path_named(label)) is not None:
            return named
    heading = next((line for line in reversed(lines[:-1]) if line.lstrip().startswith("#")), None)
    return _path_named(heading) if heading is not None else None


def _near_words(said: re.Match | None) -> tuple[str, str] | None:
    if said is None:
        return None
    where = said.groupdict().get("where") or "before"  # (between two: before the second)
    return ("before" if where.lower() in ("before", "above") else "after"), said["words"]


def _near_code(said: re.Match | None) -> tuple[str, str] | None:
    """("after" or "before", code) of a definition named by a line of it; the code starts with ``return `` where
    the sentence says the definition returns it ("the method that returns the `invoices.show` view")."""
    if said is None:
        return None
    returns = (said["verb"] or said["ing"] or "").strip().lower() in ("returns", "returning")
    return ("before" if said["where"].lower() in ("before", "above") else "after"), \
        ("return " if returns else "") + "..." * returns + said["code"]


_AFTER_THE_CONSTRUCTOR = re.compile(r"\b(?:after|below|under|beneath)\s+the\s+(?:existing\s+)?constructor\b",
                                    re.IGNORECASE)


def _place_named(prose: list[str]) -> tuple[str | None, str | None]:
    """The definition the sentence before a block says its code goes after or below (``right after `Create`:``,
    ``below the `delete` handler``), as (name, None); "" where it says the file's end ("Add these to the end of
    `tests/version.rs`"); or the one it goes before or above, as (None, name) ("Place it right above
    `releaseStock`"): a name in backticks.  (None, None) where it names no place."""
    sentences = [line for line in prose
                 if line.strip() and not (_PUT_WHERE.match(line) and not line.rstrip().endswith(":"))]
    last = _sentences(sentences[-1].strip())[-1] if sentences else ""
    if sentences and last != sentences[-1].strip() and last.endswith(":") and \
            (own := _place_named([last])) != (None, None):
        return own  # (the line's last sentence, the block's own: "Put `applyEnv` between `Default` and `Load`.
        # Then in `Load`, call it right after the `yaml.Unmarshal` check:")
    for line in sentences[-2:][::-1]:  # the sentence, or the one above a path (not one that places the block above:
        # "Put this block after the `# Auth` section.")
        said = line.replace("**", "").replace("__", "")
        if _AFTER_THE_CONSTRUCTOR.search(said) and not _BACKTICKED.search(said.split("constructor")[-1][:12]):
            return "constructor", None  # ("Add a `fromJson` factory right after the constructor:")
        end = _AT_THE_END.search(said)  # ("at the **end** of the file")
        m = _AFTER.search(line)  # (a section in bold: "between **Adding recipes** and ...")
        if m is None and (m := _AFTER.search(said)) is not None:  # ("**after** `x`": the words, not their
            line = said  # emphasis)
        if m and (quoted := re.search(r"`([^`]+)`", m[0])) and _names_file(quoted[1]):
            m = None  # (a file: "right below it in `test_api.py`")
        of_a_type = end is not None and _A_TYPE.match(said, end.end())  # ("at the end of the class, after `x`")
        if m and not (end and end.start() < m.start() and not of_a_type):  # ("after the `impl Config` block":
            calls = " calls" if m["name"] and _CALLS.match(line, m.end()) else \
                " tests" if m["name"] and _TESTS.match(line, m.end()) else ""  # ("after the existing `check`
            return ("impl " if m["impl"] else "") + (_titled_call(m[0]) or _receiver_call(m[0]) or
                                                     _resource_address(m[0]) or m["name"] or "") + calls or \
                m["section"] or m["heading"] or m["quoted"] or m["single"] or m["code"], None  # calls": the last line
            # calling it) (the impl,
            # not the struct; "at the end of the file (after the `"x"` test)": the end)
        m = _BEFORE.search(line) or _BEFORE.search(said)
        if end and not (m and m.start() < end.start() and m["name"] not in ("end", "fi", "done", "esac")):
            return "", None  # (not "above the `import_config` line at the bottom": that line)
        if m and m["name"] in ("end", "fi", "done", "esac"):
            return "", None  # ("just before the final `end`": the end of the block the file ends with)
        if m:
            return None, _titled_call(m[0]) or _receiver_call(m[0]) or _resource_address(m[0]) or m["name"] or \
                m["heading"] or m["quoted"] or \
                m["tag"] + ">"
    return None, None


def _resource_address(said: str) -> str | None:
    """A Terraform resource named by its address (```aws_s3_bucket_public_access_block.site```) as the file's
    lines name it (``aws_s3_bucket_public_access_block site``): not the first of the file's several ``site``."""
    m = re.search(r"`(?:data\.)?((?:aws|google|azurerm|azuread|kubernetes|helm|random|null|local|tls|cloudflare|"
                  r"github|digitalocean|docker|vault|time|archive|http|external)_[a-z0-9_]+)\.([A-Za-z_][\w-]*)`", said)
    return f"{m[1]} {m[2]}" if m else None


def _receiver_call(said: str) -> str | None:
    """A call on a receiver named whole, its arguments given (```r.Use(middleware.RealIP)```): a statement, the
    one line that starts with it (not the first of the file's ``Use`` calls)."""
    m = re.search(r"`((?:[\w$]+\.)+[\w$]+\((?!\s*(?:\.\.\.|\u2026)?\s*\))[^`]*\))\s*;?`", said)
    return m[1] if m else None


def _titled_call(said: str) -> str | None:
    """A call named with its title in backticks (```router.get("/:id", ...)```) as the file's lines name it
    (``router.get /:id``): one route among the file's ``router.get`` calls."""
    m = re.search(r"`([\w.$]+(?:::\w+)?)\(\s*([\"'])([^\"'`]+)\2[^`]*`", said)  # (PHP's ``Route::resource``)
    return f"{m[1]} {m[3]}" if m else None


def _says_whole_file(prose: list[str]) -> bool:
    """Whether the prose just before a block says it is the whole file ("Here's the full file so you can just
    replace it:", "Here is the complete updated `main.go`:", a heading "Rewrite `src/cli.rs`")."""
    return any(_WHOLE_FILE.search(line) for line in [line for line in prose if line.strip()][-3:])


def _unemphasized(line: str) -> str:
    """A line of prose without its emphasis marks ("**Delete** the `legacyLogin` method"), code spans as they
    are."""
    return "".join(part if k % 2 else re.sub(r"\*\*|__|(?<![\w*])\*(?=\w)|(?<=\w)\*(?![\w*])", "", part)
                   for k, part in enumerate(re.split(r"(`[^`\n]*`)", line)))


def _sentences(line: str) -> list[str]:
    """A line's sentences: split where one ends and the next starts (``... `Load`. Then in `Load`, ...``), not in
    a name or a path (``src/app.ts``, ``e.g.``)."""
    return re.split(r"(?<=[.!?])\s+(?=[A-Z`*_\"(])", line)


def _last_said(prose: list[str]) -> str:
    """The prose's last line that holds something ("" when none): the sentence that introduces a block."""
    return next((line for line in reversed(prose) if line.strip()), "")


def _shows_usage(prose: list[str], body: list[str]) -> bool:
    """Whether a block is shown as a use of the change: the prose's last line says so ("You can now call it like
    this:", "### Usage", "Then test it:"), or the block is a REPL session (``>>> f(3)``)."""
    heading = [line for line in prose if line.lstrip().startswith("#")][-1:]  # ("### Usage" above the sentence)
    first = next((line.lstrip() for line in body if line.strip()), "")
    return any(_USAGE.search(_ADDS_EXAMPLE.sub(" ", _DOTTED.sub(" ", _BACKTICKED.sub("", line))))
               for line in [_last_said(prose)] + heading) \
        or first.startswith((">>> ", "$ ", "In [1]:", "irb(", "iex("))  # (not "example" in `.env.example`)


_DOTTED = re.compile(r"[\w./*-]*\.[\w*]+")  # a file's name in a sentence (**.env.example**)
# RSpec's examples added: "add this example inside the `describe` block" (a test, not a use of the change)
_ADDS_EXAMPLE = re.compile(r"\b(?:add|adding|append|put|insert)\s+(?:this|these|an?|the|one|two|three)?\s*(?:new\s+)?"
                           r"examples?\b", re.IGNORECASE)


def _shows_output(prose: list[str]) -> bool:
    """Whether the prose right before a block that names no file says it shows what something prints or
    answers ("`GET /books/9` now returns:", "### Output"): an example, not a file."""
    lines = [line.strip("*_ \t\r\n") if not line.lstrip().startswith("#") else line.rstrip()
             for line in prose if line.strip()]
    heading = next((line for line in reversed(lines) if line.lstrip().startswith("#")), "")
    return bool(lines) and bool(_OUTPUT_SENTENCE.search(lines[-1]) and not _CHANGES_CODE.match(lines[-1]) or
                                _OUTPUT_HEADING.match(heading))


# a sentence that says to change code, whatever it ends with ("Then update `forecast(for:)` to check the cache first
# and store successful responses:")
_CHANGES_CODE = re.compile(_OPENS + r"(?:update|change|modify|rewrite|replace|add|make|wrap|extend)\s+(?:the\s+)?`",
                           re.IGNORECASE)


_FILE_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]+)\)")  # [format.ts](src/utils/format.ts)


def _path_named(line: str) -> str | None:
    """The file a line names: the path it holds and little else, or the one file a heading, a bold line or a
    sentence ending with a colon names.  A sentence naming two files, or none, names nothing.  A link to a file
    (Copilot Chat's ``### [format.ts](src/utils/format.ts)``) names its target."""
    line = _FILE_LINK.sub(lambda m: f"`{m[2]}`" if looks_like_path(m[2]) else m[0], line)
    m = _PATH_LINE.match(line) or _PATH_THEN_NOTE.match(line)
    if m and looks_like_path(m["path"]) and not re.fullmatch(r"([_*]).*\1", m["path"]):  # not _src/app.py_
        return m["path"]
    stripped = line.strip()
    heading = stripped.startswith("#")
    bold = stripped.startswith(("**", "__")) or \
        re.fullmatch(r"(\*\*|__)[^*]+\1:?", _LINE_PREFIX.sub("", stripped)) is not None  # ("3. **Update `x.rs`**")
    quoted = _BACKTICKED.findall(stripped)
    body = _EMPHASIS.sub("", _BACKTICKED.sub(_SPAN, _LINE_PREFIX.sub("", stripped)))
    body = _LABELLED.sub("", re.sub(r"^step\s+\d+\s*[:.)]\s*", "", body.strip(), flags=re.IGNORECASE))
    alone = re.sub(r"^[^\w`./\\]+", "", _TRAILING_NOTE.sub("", body, count=1).strip())  # "📄 `src/app.py`"
    if alone == _SPAN and len(quoted) == 1 and looks_like_path(quoted[0]):
        return quoted[0]
    if not quoted and looks_like_path(alone):
        return alone
    in_bold = [m[1] for m in re.finditer(r"\*\*`([^`\n]+)`\*\*", stripped)]
    if len(in_bold) == 1 and looks_like_path(in_bold[0]) and [t for t in quoted if _names_file(t)] == in_bold:
        return in_bold[0]  # (the one path set in bold: "I've named it **`database/migrations/x.php`** here; ...")
    example = _FOR_EXAMPLE.search(stripped)
    ends_naming = stripped.endswith("`.") and bool(quoted) and _names_file(quoted[-1])  # ("..., add a test in a
    # new file, `internal/worker/pool_test.go`.": the sentence ends naming the file)
    if not (heading or bold or body.rstrip().endswith(":") or ends_naming) or \
            example and any(_names_file(m[1]) and len(stripped[example.end():m.start()].split()) <= 3
                            for m in _BACKTICKED.finditer(stripped, example.end())):  # (the example's own words:
        # not "a catcher such as Mailpit by adding this after `HealthChecks` in `appsettings.json`:")
        return None  # ("Wire it up where you build the router, e.g. in `cmd/api/main.go`:": an example; not "In
        # `app/config.py`, add a flag ... (e.g. for load tests):")
    words = [w.strip(",;:!?()[]\"'*").rstrip(".") for w in _BACKTICKED.sub(" ", stripped).split()]
    words = [w if _DOTFILE.fullmatch(w) else w.lstrip(".") for w in words]  # (**.env.example**, not ``.forms``)
    named = {w for w in quoted + words if _names_file(w) and (heading or bold or _DOTFILE.fullmatch(w) or
                                                               not re.fullmatch(r"\.\w+", w))}
    # (a sentence's ``.default`` is a Swift member: "(it defaults to `.default`, so call sites keep compiling):")
    if len(named) > 1:  # (a CSS class beside the file: "to `src/Login.module.css`, before the `.submit` rule:")
        named = {w for w in named if not re.fullmatch(r"\.[\w-]+", w) or _DOTFILE.fullmatch(w)} or named
    if len(named) > 1 and len(folders := {w for w in named if "/" in w}) == 1 and \
            all(re.fullmatch(r"[a-z][\w]*(?:\.[\w]+)+", w) for w in named - folders):
        named = folders  # (a package's name beside the file: "the imports (`com.harbor.contacts.R`) ... in `app/x.kt`")
    return named.pop() if len(named) == 1 else None


def _code_file(path: str) -> bool:
    """Whether a path is a source file in a language other than the shell's (``main.go``, a ``Makefile``, not
    ``deploy.sh``)."""
    name = re.split(r"[/\\]", path)[-1]
    extension = name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""
    return extension in _CODE_EXTENSIONS and extension not in ("sh", "bash", "zsh", "fish", "ps1", "bat", "cmd") or \
        name in _BARE_NAMES


def _names_file(word: str) -> bool:
    """Whether a word in a sentence is a file: a path with a folder, a code file's extension, or a name such as
    ``Makefile`` or ``.env`` (``UserService.authenticate`` and ``e.g.`` are not)."""
    if not looks_like_path(word):
        return False
    name = re.split(r"[/\\]", word)[-1]
    if word == name and re.fullmatch(r"\.\w+", name) and name[1:].lower() in _EXTENSION_WORDS:
        return False  # ("to write `.xlsx` files": an extension, not a dotfile such as ``.env``)
    return "/" in word or name.rsplit(".", 1)[-1].lower() in _CODE_EXTENSIONS or name in _BARE_NAMES or \
        re.fullmatch(r"\.[\w\-]+(?:\.(?:example|sample|template|local|dist|development|production|test))?",
                     name) is not None and "__" not in name and "--" not in name and \
        (not re.fullmatch(r"\.[a-z]+(?:-[a-z0-9]+)+", name) or name in _HYPHENATED_DOTFILES)  # (``.env``,
    # ``.env.example``; not a CSS class: "inside `.cart__details`", "add the button inside `.site-header`")


_HYPHENATED_DOTFILES = {".git-blame-ignore-revs", ".env-cmdrc", ".pre-commit-hooks"}


_SCRIPT_LANGUAGES = {"bash", "sh", "shell", "zsh"}
_SCRIPT_FILE = re.compile(r"\.(?:sh|bash|zsh|ksh|bats)$")
# Prose that has a block run, not written: "Run the suite with:", "then execute", "to try it", "Usage:"
_RUN_SAID = re.compile(r"\b(?:run|running|execute|invoke|try|install|usage|output|prints?|terminal|commands?|"
                       r"test it|check it|call it|like this|for example|e\.g\.)\b", re.IGNORECASE)


def _goes_on_in_script(script: str | None, language: str | None, body: list[str], prose: list[str]) -> bool:
    """Whether a shell block that names no file may be more of the shell script the block before it named: a
    sentence of its own says what it changes, and nothing says it is run or shown."""
    return script is not None and language in _SCRIPT_LANGUAGES and _last_said(prose).rstrip().endswith(":") and \
        (_SCRIPT_FILE.search(script) is not None or _SCRIPT_PATH.fullmatch(script) is not None) and \
        not _RUN_SAID.search(" ".join(prose)) and not _looks_like_commands(body) and not _shows_output(prose) and \
        not any(_path_named(line) or any(_names_file(w) for w in _BACKTICKED.findall(line)) for line in prose)


def _looks_like_commands(body: list[str]) -> bool:
    """Whether a block without a language is something to type at a prompt: ``$ cmd`` lines, or every line
    starting with a command's name."""
    lines = [line.strip() for line in body if line.strip()]
    if not lines:
        return False
    if lines[0].startswith(("$ ", "% ", "PS>", "C:\\>")):
        return True
    return all(line.split()[0] in _COMMANDS for line in lines)
