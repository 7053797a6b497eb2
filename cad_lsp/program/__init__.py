"""The program core: edit programs, their resolver and their oracle, pure and model-free.

Everything above builds on this layer and nothing here imports a model, a
tokenizer or a language server: ``ops`` (the ops and their text form),
``resolver`` (program -> text, byte-exact), ``oracle`` (the cheapest program
between two texts), ``edits`` (a program as the fewest LSP TextEdits; it
imports lsprotocol, so it is not re-exported here) and ``metrics``.
``from cad_lsp.program import resolve, oracle_program, ...`` is the public path.
"""

from .ops import (
                  Copy,
                  CopySpan,
                  Document,
                  Gen,
                  Op,
                  ProgramError,
                  escape_gen,
                  format_op,
                  format_program,
                  parse_program,
                  split_lines,
                  unescape_gen,
)
from .oracle import oracle_for_selection, oracle_program, oracle_program_spans
from .resolver import apply_program, resolve, resolve_pieces, selection_problem

__all__ = ["Copy", "CopySpan", "Gen", "Op", "ProgramError", "Document", "split_lines", "parse_program",
           "format_program", "format_op", "escape_gen", "unescape_gen", "resolve", "resolve_pieces",
           "apply_program", "selection_problem", "oracle_program", "oracle_for_selection", "oracle_program_spans"]
