"""Measures of a program that the benchmarks report: coverage, spans, tokens."""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

from .ops import Copy, CopySpan, Document, Gen, Op
from .resolver import resolve_pieces

TokenCounter = Callable[[str], int]


def char_count(text: str) -> int:
    return len(text)


def token_counter(tokenizer) -> TokenCounter:
    """A counter from a Hugging Face tokenizer (no special tokens)."""
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False)) if text else 0


def op_texts(ops: Sequence[Op], document: str) -> list[tuple[bool, str]]:
    """(is_copy, text) for each op, in order."""
    doc = Document(document)
    return [
        (False, op.text) if isinstance(op, Gen) else (True, doc.text[start:end])
        for op, start, end in resolve_pieces(ops, doc)
    ]


def copy_coverage(ops: Sequence[Op], document: str, count: TokenCounter = char_count) -> float:
    """Share of the output that is copied rather than generated (1.0 for an empty output).

    Each op's text is measured on its own, as the engine produces it.
    """
    copied = generated = 0
    for is_copy, text in op_texts(ops, document):
        if is_copy:
            copied += count(text)
        else:
            generated += count(text)
    total = copied + generated
    return copied / total if total else 1.0


def generated_tokens(ops: Sequence[Op], count: TokenCounter = char_count) -> int:
    """Tokens inside gen bodies: what the model must decode one step each."""
    return sum(count(op.text) for op in ops if isinstance(op, Gen))


def span_lengths(ops: Sequence[Op], document: str, count: TokenCounter = char_count) -> list[int]:
    """Length of every copy, in the counter's unit."""
    return [count(text) for is_copy, text in op_texts(ops, document) if is_copy]


def span_histogram(lengths: Sequence[int], edges: Sequence[int] = (1, 8, 16, 32, 64, 128, 256, 512)) -> dict[str, int]:
    """Counts per bucket [edge_k, edge_k+1); the last bucket is open-ended."""
    buckets: Counter[str] = Counter()
    for n in lengths:
        label = f">={edges[-1]}"
        for lo, hi in zip(edges, edges[1:]):
            if lo <= n < hi:
                label = f"{lo}-{hi - 1}"
                break
        if n < edges[0]:
            label = f"<{edges[0]}"
        buckets[label] += 1
    order = [f"<{edges[0]}"] + [f"{lo}-{hi - 1}" for lo, hi in zip(edges, edges[1:])] + [f">={edges[-1]}"]
    return {label: buckets[label] for label in order if buckets[label]}


def count_ops(ops: Sequence[Op]) -> dict[str, int]:
    return {
        "copy_lines": sum(isinstance(op, Copy) for op in ops),
        "copy_spans": sum(isinstance(op, CopySpan) for op in ops),
        "gen": sum(isinstance(op, Gen) for op in ops),
    }
