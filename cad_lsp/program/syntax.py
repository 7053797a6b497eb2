"""Files as trees of blocks, read by tree-sitter: what a chat model's update is made of, as a parser sees it.

A *unit* is one statement, definition, comment or Markdown section: a run of
whole lines, with the units of its body when it has one (a class's methods,
a function's statements, a section's paragraphs and subsections).  A unit has
a *key* when it names something (``("function", "area")``, ``("import",
"fastapi")``, ``("call", "test 'adds numbers'")``), so that an update's unit
finds the file's unit it rewrites by name, wherever the update puts it.

The grammars are the per-language wheels (``tree-sitter-python``, ...),
which work offline; a file whose language has no grammar here, or whose
grammar wheel is missing, gets no units and is placed line by line.
"""

from __future__ import annotations

import ast
import importlib
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

__all__ = ["Unit", "language_of", "guess_language", "parse_units", "error_count", "breaks", "LANGUAGES"]


@dataclass(frozen=True)
class Grammar:
    module: str  # the grammar wheel's module
    function: str  # the function in it that returns the language
    wrapper: tuple[str, str] | None = None  # how a method pasted alone is read: inside this container


LANGUAGES: dict[str, Grammar] = {
    "python": Grammar("tree_sitter_python", "language"),
    "javascript": Grammar("tree_sitter_javascript", "language", ("class __Snippet__ {\n", "}\n")),
    "typescript": Grammar("tree_sitter_typescript", "language_typescript", ("class __Snippet__ {\n", "}\n")),
    "tsx": Grammar("tree_sitter_typescript", "language_tsx", ("class __Snippet__ {\n", "}\n")),
    "go": Grammar("tree_sitter_go", "language"),
    "rust": Grammar("tree_sitter_rust", "language", ("impl __Snippet__ {\n", "}\n")),
    "java": Grammar("tree_sitter_java", "language", ("class __Snippet__ {\n", "}\n")),
    "c": Grammar("tree_sitter_c", "language"),
    "cpp": Grammar("tree_sitter_cpp", "language", ("struct __Snippet__ {\n", "};\n")),
    "markdown": Grammar("tree_sitter_markdown", "language"),
    "csharp": Grammar("tree_sitter_c_sharp", "language", ("class __Snippet__ {\n", "}\n")),
    "kotlin": Grammar("tree_sitter_kotlin", "language", ("class __Snippet__ {\n", "}\n")),
    "ruby": Grammar("tree_sitter_ruby", "language", ("class Snippet__\n", "end\n")),
    "php": Grammar("tree_sitter_php", "language_php_only", ("class __Snippet__ {\n", "}\n")),  # (with or without <?php)
    "bash": Grammar("tree_sitter_bash", "language"),
    "swift": Grammar("tree_sitter_swift", "language", ("class __Snippet__ {\n", "}\n")),
    "scala": Grammar("tree_sitter_scala", "language", ("object __Snippet__ {\n", "}\n")),
    "elixir": Grammar("tree_sitter_elixir", "language", ("defmodule Snippet__ do\n", "end\n")),
    "xml": Grammar("tree_sitter_xml", "language_xml", ("<snippet__>\n", "</snippet__>\n")),  # (one root element:
}  # fragments, several elements side by side, are read inside a stand-in one)

_EXTENSIONS = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp",
    ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp", ".md": "markdown", ".markdown": "markdown",
    ".cs": "csharp", ".kt": "kotlin", ".kts": "kotlin", ".rb": "ruby", ".rake": "ruby", ".php": "php",
    ".sh": "bash", ".bash": "bash", ".swift": "swift", ".scala": "scala", ".sc": "scala", ".ex": "elixir",
    ".exs": "elixir", ".xml": "xml", ".csproj": "xml", ".fsproj": "xml", ".vbproj": "xml", ".props": "xml",
    ".targets": "xml", ".xaml": "xml", ".axaml": "xml", ".plist": "xml", ".xsd": "xml", ".wsdl": "xml",
}
_EDITOR_IDS = {  # editors' language ids (LSP's languageId) that are not the names above
    "javascriptreact": "javascript", "typescriptreact": "tsx", "golang": "go", "c++": "cpp", "cuda": "cpp",
    "objective-c": "c", "py": "python", "js": "javascript", "ts": "typescript", "rs": "rust", "md": "markdown",
    "cs": "csharp", "c#": "csharp", "kt": "kotlin", "rb": "ruby", "shellscript": "bash", "sh": "bash",
    "ex": "elixir", "exs": "elixir",
}

# Node types that hold a block's units: a body, a class body, a list of declarations.
_BODIES = {"block", "statement_block", "class_body", "declaration_list", "field_declaration_list",
           "compound_statement", "enum_body", "interface_body", "enum_variant_list", "object_type",
           "switch_body", "match_block", "constructor_body", "annotation_type_body", "literal_value",
           "translation_unit", "program", "module", "source_file", "document", "section",
           "array", "object", "list", "dictionary", "initializer_list", "jsx_element", "function_body",
           "compilation_unit", "body_statement", "protocol_body", "enum_class_body", "computed_property",
           "lambda_literal", "template_body", "indented_block", "case_block", "do_block"}
_JSX_EDGES = {"jsx_opening_element", "jsx_closing_element"}  # a JSX element's header and closing line
_TAGS = {"STag", "ETag"}  # an XML element's start and end tags
_ELEMENTS = {"jsx_element": _JSX_EDGES, "element": _TAGS}  # markup elements: their units lie between their tags
_CLOSERS = re.compile(r"^[\s)\]}>;,]*(//.*|/\*.*\*/)?$")  # closing brackets, and a comment after them


@dataclass
class Unit:
    """Lines ``start..end`` (0-based, inclusive) of a file; ``body`` the units inside it, ``key`` its name."""

    start: int
    end: int
    kind: str
    key: tuple[str, str] | None = None
    body: list["Unit"] | None = None  # None: no body to merge into (a statement, a comment)
    body_start: int = 0  # the first and last lines of the body's region (its units lie within)
    body_end: int = -1
    inner: int | None = None  # a decorated definition: the line its definition starts on, after the decorators
    broken: bool = False  # the parser found an error inside (an update's fragment: ``].join(',');`` alone)


def language_of(hint: str | None) -> str | None:
    """The grammar for a file name, an extension or an editor's language id; None when none fits."""
    if not hint:
        return None
    name = hint.strip().lower()
    if name in LANGUAGES:
        return name
    if name in _EDITOR_IDS:
        return _EDITOR_IDS[name]
    suffix = PurePosixPath(name).suffix or (name if name.startswith(".") else "")
    return _EXTENSIONS.get(suffix)


@lru_cache(maxsize=None)
def _parser(language: str):
    """A tree-sitter parser for the language, or None when its grammar wheel is not installed."""
    try:
        import tree_sitter

        grammar = LANGUAGES[language]
        module = importlib.import_module(grammar.module)
        return tree_sitter.Parser(tree_sitter.Language(getattr(module, grammar.function)()))
    except (ImportError, AttributeError, ValueError):
        return None


@lru_cache(maxsize=8)
def _tree(text: str, language: str):
    """The parse of a text (kept for the few texts one merge reads more than once: the file, the merged file)."""
    parser = _parser(language)
    return None if parser is None else parser.parse(text.encode("utf-8"))


def breaks(before: str, after: str, language: str | None, update: str = "") -> bool:
    """Whether ``after`` has syntax errors where ``before`` had none (a merge that broke the file).  Errors on
    lines the ``update`` has, and has errors on when read alone, are the update's own (a gap in the grammar:
    ``importOriginal<typeof import("./api")>()``), not the merge's: they do not count, unless the parser found
    a token missing (an unclosed parenthesis: a typo to fix before applying) or they are closing lines (a
    fragment's edge, and what a wrong placement leaves over)."""
    if error_count(before, language) != 0:
        return False
    if language == "python" and _misindented(after) and not _misindented(before):
        return True
    if _statements_outside(after, language) > _statements_outside(before, language):
        return True
    if not error_count(after, language):
        return False
    made = error_lines(after, language)
    if not update or any(missing for missing, _ in made):
        return True
    own = error_lines(update, language)
    wrapper = LANGUAGES[language].wrapper if language in LANGUAGES else None
    if own and wrapper is not None:  # (methods pasted alone err outside a class: read them inside one, as the
        inside = error_lines(wrapper[0] + update + wrapper[1], language)  # syntax's reading does)
        own = min(own, inside, key=len)
    excused = {line for missing, line in own
               if not missing and not _CLOSERS.match(line) and line not in ("end", "fi", "done", "esac")}
    return not excused or not {line for _, line in made} <= excused


def error_lines(text: str, language: str) -> set[tuple[bool, str]]:
    """The lines (stripped) that syntax errors start on, each with whether the error is a missing token."""
    tree = _tree(text, language)
    if tree is None:
        return set()
    lines = text.splitlines()
    return {(node.is_missing, lines[row].strip() if (row := node.start_point[0]) < len(lines) else "")
            for node in _error_nodes(tree)}


def _error_nodes(tree):
    """The tree's error and missing nodes, outermost: a walk that enters only subtrees holding an error."""
    stack = [tree.root_node] if tree.root_node.has_error else []
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            yield node
        elif node.has_error:
            stack.extend(node.children)


# Statements the grammars read at a file's top level, where the language allows none: a function's fragment
# placed after the file's last function parses (the parsers tolerate it), and the merge must not.
_STATEMENT_OUTSIDE = {"go": re.compile(r"_statement$|^short_var_declaration$"),
                      "java": re.compile(r"_statement$|^local_variable_declaration$"),
                      "rust": re.compile(r"^let_declaration$"),
                      "c": re.compile(r"^(?:if|for|while|do|return|switch)_statement$"),
                      "cpp": re.compile(r"^(?:if|for|while|do|return|switch)_statement$")}


def _statements_outside(text: str, language: str | None) -> int:
    """How many statements stand at the top level of a file of a language that allows none there."""
    kind = _STATEMENT_OUTSIDE.get(language or "")
    tree = _tree(text, language) if kind is not None else None
    return 0 if tree is None else sum(1 for node in tree.root_node.children if kind.search(node.type))


@lru_cache(maxsize=8)
def _misindented(text: str) -> bool:
    """Whether Python refuses the text's indentation.  tree-sitter's Python reads a line indented under nothing
    (a block's old tail left after new top-level code) as a block of its own; Python's own parser does not.
    Only indentation is asked: other errors may be syntax newer than this interpreter's, which the grammar reads."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except IndentationError:  # TabError is one
        return True
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return False


def error_count(text: str, language: str | None) -> int | None:
    """How many syntax errors the parser finds (error and missing nodes); None without a grammar."""
    tree = _tree(text, language) if language else None
    return None if tree is None else sum(1 for _ in _error_nodes(tree))


def guess_language(text: str) -> str | None:
    """The first language whose grammar reads the text without an error, for an answer that names no file (the
    HTTP endpoint's); None when none does (the update is then placed line by line)."""
    for language in ("python", "tsx", "typescript", "javascript", "go", "rust", "java", "cpp", "c"):
        if error_count(text, language) == 0:
            return language
    return None


# ---------------------------------------------------------------------------
# Units


_RUNS_ON = {"indented_block", "statements"}  # Scala's indented body, Swift's statements of a case


def _line_of_end(node) -> int:
    """The last line a node's text is on (a node that ends at column 0 ends on the line before)."""
    if node.type in _RUNS_ON and node.named_children:  # (they run on over the next line's indentation, and
        kids = node.named_children  # take the comments there, less indented than they are: the next unit's doc)
        while len(kids) > 1 and "comment" in kids[-1].type and kids[-1].start_point[1] < kids[0].start_point[1]:
            kids = kids[:-1]
        return _line_of_end(kids[-1])
    if node.children and node.children[-1].type in _RUNS_ON:
        return _line_of_end(node.children[-1])
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point[0] else row


def _text(node, source: bytes) -> str:
    return source[node.start_byte: node.end_byte].decode("utf-8", "replace")


def _find_body(node):
    """The descendant holding a block's units: the widest body-like node below it that is not itself a unit's
    whole line range elsewhere (a class's class_body, a function's block, a call's last callback's body)."""
    best, stack = None, list(node.children)
    while stack:
        child = stack.pop()
        if child.type in ("do_block", "call") and not _elixir(child):
            continue  # (Elixir's: Ruby's ``describe "x" do`` blocks are placed by their lines)
        if child.type in _BODIES and child.end_point[0] > child.start_point[0]:
            span = child.end_point[0] - child.start_point[0]
            if best is None or span > best[0]:
                best = (span, child)
            continue
        if child.type in ("arguments", "arrow_function", "function_expression", "function", "call_expression",
                          "expression_statement", "function_definition", "class_definition",
                          "lexical_declaration", "variable_declarator", "export_statement", "decorated_definition",
                          "class_declaration", "class", "function_declaration", "method_definition", "type_spec",
                          "struct_type", "interface_type", "parenthesized_expression", "jsx_expression",
                          "return_statement", "with_statement", "if_statement", "for_statement", "while_statement",
                          "try_statement", "else_clause", "impl_item", "trait_item", "mod_item", "function_item",
                          "struct_item", "enum_item", "class_specifier", "struct_specifier", "namespace_definition",
                          "template_declaration", "declaration", "function_declarator", "type_declaration",
                          "method_declaration", "interface_declaration", "enum_declaration", "object",
                          "assignment_expression", "assignment", "await_expression", "new_expression",
                          "match_expression", "switch_statement", "switch_expression", "when_expression",
                          "call_suffix", "navigation_expression", "object_definition", "trait_definition",
                          "val_definition", "var_definition", "call", "protocol_declaration"):
            stack.extend(child.children)
    if best is None:
        return None
    body = best[1]
    if body.type == "function_body" and len(body.named_children) == 1 and body.named_children[0].type in _BODIES:
        body = body.named_children[0]  # Kotlin's function_body holds the block that holds the statements
    return body


def _name(node, source: bytes) -> str | None:
    """The name a definition declares: its ``name`` field, looked for through wrappers (a decorated
    definition, an export, a declarator)."""
    for _ in range(4):
        name = node.child_by_field_name("name")
        if name is not None:
            return _text(name, source)
        inner = (node.child_by_field_name("definition") or node.child_by_field_name("declaration")
                 or node.child_by_field_name("declarator") or node.child_by_field_name("type"))
        if inner is None:
            inner = next((c for c in node.named_children if c.type.endswith(("declarator", "_spec", "definition",
                                                                              "declaration", "_item"))), None)
        if inner is None:
            return None
        if inner.type in ("identifier", "field_identifier", "type_identifier", "property_identifier"):
            return _text(inner, source)
        node = inner
    return None


def _category(kind: str) -> str | None:
    """What a node type declares, in words shared by the grammars: a function and a method are one (a method
    pasted alone is read as a function)."""
    if "import" in kind or kind in ("use_declaration", "preproc_include", "package_clause", "using_directive",
                                    "namespace_use_declaration"):  # (PHP's ``use App\Models\User;``)
        return "import"
    if any(word in kind for word in ("function", "method", "constructor")) or \
            kind in ("init_declaration", "deinit_declaration", "subscript_declaration"):  # (Swift's)
        return "function"
    if any(word in kind for word in ("class", "struct", "interface", "enum", "trait", "type_declaration",
                                     "type_alias", "typealias", "union", "record", "namespace", "mod_item",
                                     "module", "protocol", "object_definition")):
        return "type"
    if kind in ("impl_item",):
        return "impl"
    return None


def _key(node, source: bytes, kind: str) -> tuple[str, str] | None:
    if kind == "call" and node.child_by_field_name("target") is not None:
        return _elixir_key(node, source)
    if kind == "element" and node.named_children and node.named_children[0].type in ("STag", "EmptyElemTag"):
        return _xml_key(node, source)
    category = _category(kind)
    if kind == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return _key(inner, source, inner.type) if inner is not None else None
    if kind == "export_statement":
        inner = node.child_by_field_name("declaration")
        return _key(inner, source, inner.type) if inner is not None else None
    if category == "import":
        return ("import", _import_source(node, source))
    if category == "impl":
        return ("impl", " ".join(_text(c, source) for c in (node.child_by_field_name("trait"),
                                                              node.child_by_field_name("type")) if c is not None))
    if kind in ("init_declaration", "deinit_declaration", "subscript_declaration"):
        return ("function", kind.removesuffix("_declaration"))
    if category in ("function", "type"):
        name = _name(node, source)
        if kind == "class_declaration" and any(c.type == "extension" for c in node.children) and name:
            name = "extension " + name  # Swift: ``extension Store`` is not ``class Store`` rewritten
        if kind == "object_definition" and name:
            name = "object " + name  # Scala: a companion ``object HttpFetcher`` is not ``class HttpFetcher`` rewritten
        if name and re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and category == "function" and \
                node.child_by_field_name("type") is None:  # a test macro (no return type):
            declarator = node.child_by_field_name("declarator")  # ``TEST(PolygonTest, Contains)``, by its arguments
            parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
            if parameters is not None:
                name += re.sub(r"\s+", " ", _text(parameters, source))
        if kind == "method_declaration" and node.child_by_field_name("receiver") is not None:  # Go: per type
            receiver = re.sub(r"[\s*()]|\b\w+\s+(?=\w)", "", _text(node.child_by_field_name("receiver"), source))
            name = f"{receiver}.{name}"
        return (category, name) if name else None
    if kind in ("lexical_declaration", "variable_declaration", "const_declaration", "var_declaration",
                "static_item", "const_item", "let_declaration", "field_declaration", "public_field_definition",
                "field_definition", "short_var_declaration", "property_declaration", "val_definition",
                "var_definition"):
        declarator = next((c for c in node.named_children if c.type == "variable_declarator"), None)
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if value is not None and value.type == "call_expression" and _text(value.child_by_field_name("function"),
                                                                           source) == "require":
            return ("import", _text(value.child_by_field_name("arguments"), source))  # const {a} = require('x')
        target = declarator.child_by_field_name("name") if declarator is not None else None
        if target is not None and target.type == "array_pattern" and _first_identifier(target, source):
            return ("variable", _first_identifier(target, source))  # const [submitting, setSubmitting] = ...
        if target is not None and target.type == "object_pattern" and value is not None:
            return ("variable", "= " + _text(value, source))  # const { a, b } = load(): named by what it reads
        pattern = node.child_by_field_name("pattern")  # (Scala's ``val routes: Route =``: not its type's name)
        name = _text(pattern, source) if pattern is not None else _name(node, source) or _first_identifier(node,
                                                                                                          source)
        return ("variable", name) if name else None
    if kind == "global_statement" and node.named_children:  # C#'s top-level statements (a ``Program.cs``)
        return _key(node.named_children[0], source, node.named_children[0].type)
    if kind == "expression_statement" and node.named_children:
        inner = node.named_children[0]
        if inner.type in ("assignment", "assignment_expression", "augmented_assignment"):
            left = inner.child_by_field_name("left")
            return ("variable", _text(left, source)) if left is not None else None
        if inner.type == "await_expression" and inner.named_children:
            inner = inner.named_children[0]
        if inner.type in ("call_expression", "call", "method_invocation", "invocation_expression"):
            return _call_key(inner, source)
    if kind == "call_expression" and node.child_by_field_name("function") is not None:  # a statement of its own
        return _call_key(node, source)  # (Scala's ``test("adds") { ... }``)
    if kind == "unary_operator" and re.match(r"@\w+", _text(node, source)):  # an Elixir module attribute
        return ("variable", re.match(r"@\w+", _text(node, source)).group())
    if kind == "section":
        heading = next((c for c in node.named_children if c.type.endswith("heading")), None)
        if heading is not None:
            return ("section", re.sub(r"\s+", " ", _text(heading, source).strip("#=- \n\t")).lower())
    return None


_XML_IDENTITIES = ("id", "name", "key", "Include", "Update", "x:Name", "x:Key", "android:id", "android:name")
_XML_ID_CHILDREN = ("artifactId", "id", "name")  # (Maven's ``<dependency>``: its ``<artifactId>``)


def _xml_key(element, source: bytes) -> tuple[str, str]:
    """An XML element named by its tag and what identifies it among its siblings: an attribute such as ``id``,
    ``Include`` (a ``<PackageReference>``), ``x:Name``, or a child such as Maven's ``<artifactId>``; an element with
    none is one of a series (``("call", tag)``), paired with the file's most alike."""
    tag_node = element.named_children[0]
    tag = next((_text(c, source) for c in tag_node.named_children if c.type == "Name"), "")
    content = next((c for c in element.named_children if c.type == "content"), None)
    if tag == "key" and content is not None and [c.type for c in content.named_children] == ["CharData"]:
        return ("plist key", f"key {_text(content, source).strip()}")  # (joined to its value: ``_units_of``)
    for attribute in (c for c in tag_node.named_children if c.type == "Attribute"):
        name = next((_text(c, source) for c in attribute.named_children if c.type == "Name"), "")
        value = next((_text(c, source).strip("\"'") for c in attribute.named_children if c.type == "AttValue"), "")
        if name in _XML_IDENTITIES:
            return ("section", f"{tag} {name}={value}")
    content = next((c for c in element.named_children if c.type == "content"), None)
    for child in content.named_children if content is not None else []:
        start = child.named_children[0] if child.type == "element" and child.named_children else None
        name = next((_text(c, source) for c in start.named_children if c.type == "Name"), "") if start else ""
        if name in _XML_ID_CHILDREN:
            return ("section", f"{tag} {_text(child, source)}")
    return ("call", tag)


_NOT_THE_NAME = {"modifiers", "annotation", "marker_annotation", "attribute_list", "decorator"}


def _first_identifier(node, source: bytes) -> str | None:
    """The first name in a node, its modifiers and annotations aside (Kotlin's ``@Column(...) lateinit var
    createdAt``: ``createdAt``, not ``Column``)."""
    stack = [c for c in node.named_children if c.type not in _NOT_THE_NAME]
    while stack:
        child = stack.pop(0)
        if child.type in ("identifier", "field_identifier", "property_identifier", "simple_identifier",
                          "variable_name"):  # (PHP's ``private readonly Closure $clock;``: ``$clock``)
            return _text(child, source)
        stack = list(child.named_children) + stack
    return None


def _import_source(node, source: bytes) -> str:
    """What an import imports from: the module (``from fastapi import A`` and ``from fastapi import A, B`` are
    one import rewritten), else the whole statement."""
    if len(node.children_by_field_name("path")) > 1:  # Scala: ``import a.b.{C, D}`` is ``a.b``'s, whichever names
        return re.sub(r"\.\{.*\}$", ".{}", re.sub(r"\s+", " ", _text(node, source).strip()))
    if node.type == "use_declaration":  # Rust: ``use axum::{...}`` is ``axum``'s, on one line or several; PHP's
        text = _text(node, source).removeprefix("pub ").removeprefix("use ").strip().rstrip(";")  # traits:
        return re.sub(r"::\{.*", "", text, flags=re.DOTALL).split(",")[0].strip()  # ``use HasFactory,
        # SoftDeletes;`` is ``use HasFactory;`` rewritten
    for field_name in ("module_name", "source", "path", "argument"):
        child = node.child_by_field_name(field_name)
        if child is not None:
            return _text(child, source)
    if node.end_point[0] > node.start_point[0]:  # a block of imports (Go's ``import (``): one, rewritten whole
        return _text(node, source).splitlines()[0].strip()
    return re.sub(r"\s+", " ", _text(node, source))


def _call_key(call, source: bytes) -> tuple[str, str] | None:
    """A call statement named by its callee and its first argument when that is a string (``test('adds')``,
    ``app.get("/")``), else by its callee alone (``print(...)``)."""
    callee = call.child_by_field_name("function") or call.child_by_field_name("name")  # Java: object.name(...)
    if callee is None:
        return None
    args = call.child_by_field_name("arguments")
    first = args.named_children[0] if args is not None and args.named_children else None
    target = call.child_by_field_name("object") if call.type == "method_invocation" else None
    name = (_text(target, source) + "." if target is not None else "") + _text(callee, source)
    if first is not None and first.type in ("string", "template_string", "string_literal", "interpreted_string_literal",
                                            "raw_string_literal", "encapsed_string"):
        name += " " + _text(first, source)
    return ("call", name)


# Elixir's definitions and the calls that name a block are calls: ``def total(cart) do``, ``describe "x" do``.
_ELIXIR_DEFINES = {"def": "function", "defp": "function", "defmacro": "function", "defmacrop": "function",
                   "defguard": "function", "defguardp": "function", "defdelegate": "function", "defn": "function",
                   "defmodule": "type", "defprotocol": "type", "defimpl": "type", "defstruct": "type",
                   "import": "import", "alias": "import", "use": "import", "require": "import"}


_ELIXIR_ANNOTATION = re.compile(r"@(doc|spec|impl|tag|deprecated|since|decorate)\b")


def _elixir(node) -> bool:
    """Whether a ``call`` or ``do_block`` node is Elixir's (its calls name their callee ``target``; Ruby's do not)."""
    call = node if node.type == "call" else node.parent
    return call is not None and call.child_by_field_name("target") is not None


def _elixir_key(call, source: bytes) -> tuple[str, str] | None:
    """An Elixir call's key: a definition by its name (``def total(cart) when ...``: ``total``), an import by what
    it imports, a block-taking call by its first argument (``test "adds" do``: ``test "adds"``)."""
    target = _text(call.child_by_field_name("target"), source)
    args = next((c for c in call.named_children if c.type == "arguments"), None)
    first = args.named_children[0] if args is not None and args.named_children else None
    category = _ELIXIR_DEFINES.get(target)
    if category == "function" and first is not None:
        head = first.child_by_field_name("left") if first.type == "binary_operator" else first  # ``when`` guards
        name = head.child_by_field_name("target") if head is not None and head.type == "call" else head
        return ("function", _text(name, source)) if name is not None else None
    if category is not None:
        return (category, _text(args, source) if args is not None else target)
    if first is not None and first.type in ("string", "atom", "alias"):
        return ("call", f"{target} {_text(first, source)}")
    return ("call", target) if args is None else None


_LISTS = {"statement_list", "statements", "content"}  # nodes that only wrap a body's statements (Go): their children are the units


def _children(container) -> list:
    out = []
    for child in container.named_children:
        out += _children(child) if child.type in _LISTS else [child]
    return out


def _units_of(container, source: bytes, lines: list[str]) -> list[Unit]:
    """The units directly inside a container node: its named children, those that share a line joined into
    one (``a = 1; b = 2``, a statement and the comment after it), and the comment lines right above a named
    block joined to it (its doc comment: rewritten with it)."""
    units: list[Unit] = []
    for child in _children(container):
        start, end = child.start_point[0], _line_of_end(child)
        if end < start or child.type in _JSX_EDGES or child.type in _TAGS or \
                child.type in ("jsx_text", "CharData") and not _text(child, source).strip():
            continue
        if child.type == "CharData" and end > start:  # text between XML elements: a unit a line
            units += [Unit(row, row, "text", None) for row in range(start, end + 1) if lines[row].strip()]
            continue
        unit = _unit(child, source, lines, start, end)
        if units and units[-1].key is not None and units[-1].key[0] == "plist key" and child.type == "element":
            last = units[-1]  # a property list's ``<key>name</key>`` and the value after it: one entry, named
            units[-1] = Unit(last.start, end, "element", ("section", last.key[1]), unit.body, unit.body_start,
                             unit.body_end)
            continue
        if units and start <= units[-1].end:  # shares a line with the previous unit: one unit
            last = units[-1]
            units[-1] = Unit(last.start, max(last.end, end), last.kind, last.key if end <= last.end else None,
                             last.body if end <= last.end else None, last.body_start, last.body_end, last.inner)
            continue
        units.append(unit)
    return _with_doc_comments(_with_orphan_comments(units, lines))


COMMENT_LINE = re.compile(r"^\s*(?:/\*|\*|//|#(?![\[!])|--)")  # a line of a comment: ``// Check ...``, ``# x``


def _with_orphan_comments(units: list[Unit], lines: list[str]) -> list[Unit]:
    """The units, and as units of their own the comment lines between them that no unit holds (Scala's parser
    reads the comments after an indented body into it; cut from there, a doc comment is the next definition's,
    a marker a marker)."""
    out: list[Unit] = []
    for unit in units:
        floor = out[-1].end if out else -1
        out += [Unit(row, row, "comment", None) for row in range(floor + 1, unit.start)
                if floor >= 0 and COMMENT_LINE.match(lines[row]) and not lines[row].strip().startswith("#include")]
        out.append(unit)
    return out


# What goes with the definition right below it: its doc comment, and Rust's attributes (``#[test]``), which the
# parser reads as items of their own (Python's decorators and Java's annotations are part of the definition), and
# a Kotlin annotation with arguments above a function shown outside its class (``@PatchMapping("/{id}")``: at the
# top level the parser reads it as an annotated expression of its own).
_ATTACHED = ("comment", "line_comment", "block_comment", "attribute_item", "annotated_expression")


def _with_doc_comments(units: list[Unit]) -> list[Unit]:
    out: list[Unit] = []
    for unit in units:
        named = unit.key is not None and unit.key[0] in ("function", "type", "impl", "variable")
        first = len(out)
        while named and first > 0 and out[first - 1].kind in _ATTACHED and out[first - 1].end + 1 == (
                out[first].start if first < len(out) else unit.start) and \
                (out[first - 1].kind != "annotated_expression" or out[first - 1].start == out[first - 1].end):
            first -= 1
        if first < len(out):
            unit = Unit(out[first].start, unit.end, unit.kind, unit.key, unit.body, unit.body_start, unit.body_end,
                        unit.inner if unit.inner is not None else unit.start)
            del out[first:]
        out.append(unit)
    return out


def _unit(node, source: bytes, lines: list[str], start: int, end: int) -> Unit:
    kind = node.type
    if kind == "unary_operator" and re.match(_ELIXIR_ANNOTATION, _text(node, source)):
        kind = "attribute_item"  # ``@doc``, ``@spec``, ``@impl true`` go with the definition below them
    key = _key(node, source, kind)
    if key is None and end > start:  # a compound statement: named by its first line (``if (!response.ok) {``)
        key = ("first line", lines[start].strip())
    body = None
    cases = kind == "switch_statement" and any(c.type == "switch_entry" for c in node.named_children)
    lidded = cases or kind in _PREPROCESSED  # (its units are its own children, between its first and last lines)
    body_node = node if kind in _ELEMENTS or lidded else _find_body(node)
    body_start, body_end = 0, -1
    if body_node is not None and end > start:
        units = _units_of(body_node, source, lines)
        if lidded:  # Swift's ``switch x {``: its cases; C's ``#ifndef X_H`` ... ``#endif``: the header's declarations
            body_start = start + 1
            body_end = end - (1 if _CLOSERS.match(lines[end]) or lines[end].lstrip().startswith("#endif") else 0)
        elif body_node.type in _ELEMENTS:  # between the opening tag's line and the closing tag's
            edges = [c for c in body_node.named_children if c.type in _ELEMENTS[body_node.type]]
            body_start = _line_of_end(edges[0]) + 1 if edges else start
            closing = edges[-1].start_point[0] if len(edges) == 2 else end + 1
            body_end = closing - 1 if closing > body_start - 1 else closing
        elif _opens_on_line(body_node, source):
            body_start = body_node.start_point[0] + 1
        else:  # an indented block (Python) starts after its header; comments before its first statement are
            header = body_node.prev_sibling  # the parser's children of the header, not of the block
            while header is not None and header.type == "comment":
                header = header.prev_sibling
            body_start = _line_of_end(header) + 1 if header is not None else body_node.start_point[0]
            if header is not None and header.parent is not None:
                units = [_unit(c, source, lines, c.start_point[0], _line_of_end(c))
                         for c in header.parent.named_children
                         if c.type == "comment" and body_start <= c.start_point[0] < body_node.start_point[0]] + units
        if body_node.type not in _ELEMENTS and not lidded:
            body_end = _line_of_end(body_node) - (1 if _closes_on_line(body_node, lines) else 0)
        units = [u for u in units if u.start >= body_start and u.end <= body_end]
        if body_start <= body_end:
            body = units
    inner = None
    if kind == "decorated_definition" and node.child_by_field_name("definition") is not None:
        inner = node.child_by_field_name("definition").start_point[0]
    elif key is not None and key[0] in ("function", "type", "variable") and kind != "unary_operator":  # annotations (``@Injectable()``),
        row = start  # C#'s attributes (``[ApiController]``, ``[Route("api/[controller]")]``)
        while row < end and (lines[row].lstrip().startswith("@") or _ATTRIBUTE_LINE.match(lines[row])):
            row += 1
        decorators = [c for c in node.children if c.type == "decorator"]  # (TypeScript's, over several lines:
        if decorators and _line_of_end(decorators[-1]) < end:  # ``@Component({`` to ``})``)
            row = max(row, _line_of_end(decorators[-1]) + 1)
        inner = row if row > start else None
    return Unit(start, end, kind, key, body, body_start, body_end, inner, node.has_error)


_PREPROCESSED = {"preproc_ifdef", "preproc_if"}  # C's conditional blocks: a header's guard around its declarations
_ATTRIBUTE_LINE = re.compile(r"^\s*\[[A-Za-z_][\w.]*(?:\(.*\))?(?:\s*,\s*[A-Za-z_][\w.]*(?:\(.*\))?)*\]\s*$")


def _opens_on_line(body, source: bytes) -> bool:
    """Whether a body starts with its opening bracket (``class A {``): its first line is then the header's."""
    return source[body.start_byte: body.start_byte + 1] in (b"{", b"(", b"[") or body.type == "do_block"


def _closes_on_line(body, lines: list[str]) -> bool:
    """Whether a body ends on a line of closing brackets (``}``, ``});``): that line is the block's end."""
    row = _line_of_end(body)
    closing = _CLOSERS.match(lines[row]) or body.type == "do_block" and lines[row].strip() == "end" \
        if 0 <= row < len(lines) else None
    return bool(closing) and row > body.start_point[0]


def parse_units(text: str, language: str, lines: list[str]) -> tuple[list[Unit], int] | None:
    """The top-level units of a file and its error count; None without a grammar."""
    tree = _tree(text, language)
    if tree is None:
        return None
    source = text.encode("utf-8")
    root = tree.root_node
    errors = error_count(text, language) or 0
    if language == "markdown":
        return _markdown_units(root, source, lines), errors
    return _units_of(root, source, lines), errors


def _markdown_units(root, source: bytes, lines: list[str]) -> list[Unit]:
    """A Markdown file's units: its sections, flat (a heading of any level and the lines up to the next
    heading), so that sections found again after a reordering keep their text; what precedes the first
    heading is a unit per block."""
    units: list[Unit] = []
    stack = [root]
    headings = []
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in ("atx_heading", "setext_heading"):
                headings.append(child)
            elif child.type == "section":
                stack.append(child)
    headings.sort(key=lambda h: h.start_point[0])
    first = headings[0].start_point[0] if headings else len(lines)
    blocks = [c for c in _descendant_blocks(root) if c.start_point[0] < first]
    for block in blocks:
        units.append(Unit(block.start_point[0], _last_line(block, lines), block.type, None))
    for n, heading in enumerate(headings):
        start = heading.start_point[0]
        end = (headings[n + 1].start_point[0] if n + 1 < len(headings) else len(lines)) - 1
        while end > start and not lines[end].strip():
            end -= 1
        body_start = _line_of_end(heading) + 1
        body = [Unit(b.start_point[0], _last_line(b, lines), b.type, None)
                for b in _descendant_blocks(root) if body_start <= b.start_point[0] <= end]
        body = [u for u in body if u.end <= end] if body_start <= end else []
        title = re.sub(r"\s+", " ", _text(heading, source).strip("#=- \n\t")).lower()
        units.append(Unit(start, end, "section", ("section", title), body, body_start, end))
    return units


def _last_line(block, lines: list[str]) -> int:
    """A Markdown block's last line with text (a list's node runs on over the blank line after it)."""
    start, end = block.start_point[0], max(block.start_point[0], _line_of_end(block))
    while end > start and not lines[end].strip():
        end -= 1
    return end


def _descendant_blocks(root) -> list:
    """Markdown's leaf blocks (paragraphs, lists, code, HTML comments), not sections or headings."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type in ("section", "document"):
                stack.append(child)
            elif child.type not in ("atx_heading", "setext_heading"):
                out.append(child)
    return sorted(out, key=lambda n: n.start_point[0])
