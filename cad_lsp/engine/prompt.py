"""The prompt: the document first (cacheable per version), then the request.

The document part is tokenized on its own and the request part on its own,
and the model sees their concatenation, so the document's KV cache is a
true prefix of every request's prompt -- no re-tokenization at the seam.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..program import Copy, Document, format_op, split_lines

SYSTEM = (
    "You edit code. Answer with an edit program that replaces the selected lines. "
    'Write <copy lines="i-j"/> to keep document lines i to j unchanged (each copy after the previous one) '
    "and <gen>new text</gen> for text that changes. Copy every line that stays the same; "
    "write only what changes. End the program when the selected lines are complete."
)

_MARK = "\u0000CAD-LSP-REQUEST\u0000"

_CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
_PLAIN = (
    "{% for m in messages %}### {{ m['role'] }}\n{{ m['content'] }}\n\n{% endfor %}"
    "{% if add_generation_prompt %}### assistant\n{% endif %}"
)


def numbered(document: str, start: int = 1, end: int | None = None) -> str:
    """The document as the model reads it: `N| text` per line, terminators normalised.

    ``start``/``end`` show only those lines, still under their own numbers.
    """
    lines = split_lines(document)[start - 1 : end]
    return "".join(_numbered_line(n, line) for n, line in enumerate(lines, start))


def _numbered_line(n: int, line: str) -> str:
    return f"{n}| {line.rstrip(chr(13) + chr(10))}\n"


def numbered_line_tokens(tokenizer, document: str) -> list[int]:
    """Tokens each numbered line costs in the prompt (tokenized one by one: a close estimate of the whole)."""
    lines = [_numbered_line(n, line) for n, line in enumerate(split_lines(document), 1)]
    return [len(ids) for ids in tokenizer(lines, add_special_tokens=False)["input_ids"]] if lines else []


def file_header(name: str) -> str:
    return f"File {name}:\n"


def shown_note(window) -> str:
    """Where a window's lines sit in the file.  It follows the document, in the request: it changes with every
    line typed above the window, and the document part, whose cache is kept, must not."""
    return "" if window is None else f"\nShown: lines {window.start}-{window.end} of {window.total}, numbered from 1"


def request_text(first: int, last: int, instruction: str, update: str | None = None, window=None) -> str:
    """The request after the document: where a window sits, the lines to replace, the instruction, and for an
    apply the update with its placement in the file (``update_hints``)."""
    text = f"{shown_note(window)}\nSelected lines: {first}-{last}\nInstruction: {instruction.strip()}"
    return text if update is None else f"{text}\nUpdate:\n{update}"


APPLY_INSTRUCTION = "Apply the update."


def apply_instruction(instruction: str | None = None) -> str:
    """What an apply asks: the update, with the chat's instruction as context when there is one."""
    said = (instruction or "").strip()
    return f"{APPLY_INSTRUCTION} {said}" if said else APPLY_INSTRUCTION


def update_hints(document: str, first: int, last: int, plan) -> str:
    """The update as the model reads it: lines first..last as the update leaves them, in the file's order, a
    line that stays under its number (``12| text``, as the document is shown; a long run of them as its first
    line, ``13-39| ...`` and its last), a line the update removes or rewrites as ``-12| text``, a new one as
    ``+| text``.  The placement is worked out without the model (``program.update``), so the model confirms
    and writes rather than searches: copy the numbered runs, write the ``+`` lines, skip the ``-`` ones."""
    doc = Document(document)
    rows, line = [], first

    def removed(upto: int) -> None:
        nonlocal line
        rows.extend(f"-{n}| {doc.lines[n - 1].rstrip(chr(13) + chr(10))}\n" for n in range(line, upto))
        line = max(line, upto)

    for at, op in enumerate(plan):
        if isinstance(op, Copy):
            removed(op.start)
            run = [_numbered_line(n, doc.lines[n - 1]) for n in range(op.start, op.end + 1)]
            if len(run) > HINT_RUN:
                run = [run[0], f"{op.start + 1}-{op.end - 1}| ...\n", run[-1]]
            rows.extend(run)
            line = op.end + 1
        else:  # what the new text replaces first, as a diff shows it
            removed(next((later.start for later in plan[at + 1:] if isinstance(later, Copy)), last + 1))
            rows.extend(f"+| {text.rstrip(chr(13) + chr(10))}\n" for text in split_lines(op.text))
    removed(last + 1)
    return "".join(rows)


HINT_RUN = 4  # a run of unchanged lines longer than this is shown by its ends


def _template(tokenizer) -> str | None:
    if getattr(tokenizer, "chat_template", None):
        return None  # the model's own
    im_start = tokenizer.convert_tokens_to_ids("<|im_start|>")
    known = isinstance(im_start, int) and im_start != getattr(tokenizer, "unk_token_id", None)
    return _CHATML if known else _PLAIN


@dataclass(frozen=True)
class Prompt:
    prefix_ids: list[int]  # system text + the numbered document: cached per document version
    request_ids: list[int]  # selection, instruction, assistant turn

    @property
    def ids(self) -> list[int]:
        return self.prefix_ids + self.request_ids


def build_prompt(tokenizer, document: str, first: int, last: int, instruction: str,
                 name: str = "document", system: str = SYSTEM, examples: str = "", window=None,
                 update: str | None = None) -> Prompt:
    """The prompt for an edit of lines first..last of ``document``, numbered from 1.

    For a long file ``document`` is the window's text (a ``window.Window`` says where it sits) and the lines
    are the window's own: a line typed above the window then changes only the request, and the document part,
    whose cache is kept, stays the same.  An apply passes its ``update`` (``update_hints``): the document part
    is the same as an edit's."""
    request = request_text(first, last, instruction, update, window)
    user = f"{examples}{file_header(name)}{numbered(document)}{_MARK}{request}"
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    text = tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, chat_template=_template(tokenizer)
    )
    prefix, request = text.split(_MARK)
    encode = lambda s: tokenizer.encode(s, add_special_tokens=False)  # noqa: E731
    return Prompt(encode(prefix), encode(request))


def program_stream(ops, document: str) -> str:
    """A program as the model's context holds it: after each copy tag, the copied lines.

    At inference those lines are spliced into the cache, so a few-shot
    example (or a training sequence) must show them there too.
    """
    doc = Document(document)
    out = []
    for op in ops:
        out.append(format_op(op) + "\n")
        if isinstance(op, Copy):
            start, end = doc.line_range_offsets(op.start, op.end)
            out.append(document[start:end])
    return "".join(out)


def example_text(document: str, first: int, last: int, instruction: str, ops, name: str = "example") -> str:
    """One worked example for a few-shot prompt, in the request's own layout."""
    return (f"Example. File {name}:\n{numbered(document)}{request_text(first, last, instruction)}\n"
            f"Answer:\n{program_stream(ops, document)}\n")


def document_prefix_ids(tokenizer, document: str, name: str = "document", examples: str = "") -> list[int]:
    """The cacheable part of every prompt on this document version (or this window's text)."""
    return build_prompt(tokenizer, document, 1, 1, "", name, examples=examples).prefix_ids


# Worked examples for models too small to follow the format from the system text alone (SmolLM2-135M
# copies everything, then writes "new text"): one deletion, one rename, one insertion, written for this
# prompt and in no benchmark's test cases.
BUILT_IN_EXAMPLES = [
    ('def area(w, h):\n    print("DEBUG", w, h)\n    return w * h\n', "Delete the debug print statements",
     "def area(w, h):\n    return w * h\n"),
    ('def greet(n):\n    message = "Hello, " + n\n    return message\n', "Rename `n` to `name`",
     'def greet(name):\n    message = "Hello, " + name\n    return message\n'),
    ("def is_even(k):\n    return k % 2 == 0\n", 'Add the docstring "Return True if k is even."',
     'def is_even(k):\n    """Return True if k is even."""\n    return k % 2 == 0\n'),
]
SMALL_MODELS = ("smollm2",)  # model names whose prompt carries the built-in examples


def built_in_examples() -> str:
    """The built-in examples as prompt text, each program with the copied lines after its copy tags."""
    from ..program import oracle_for_selection

    parts = []
    for document, instruction, after in BUILT_IN_EXAMPLES:
        last = len(split_lines(document))
        ops = oracle_for_selection(document, 1, last, after)
        parts.append(example_text(document, 1, last, instruction, ops))
    return "".join(parts) + "Now the request.\n"


def default_examples(model_name: str, adapted: bool = False) -> str:
    """Worked examples for the named model's prompt: the built-in ones for small models without an
    adapter, else none (an adapter was trained on the prompt without examples)."""
    return built_in_examples() if model_name.split(":")[0] in SMALL_MODELS and not adapted else ""
