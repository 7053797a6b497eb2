"""The engine: edit requests over any model behind the seam (``backend``), with warm per-document caches.

``grammar`` constrains tokens to valid programs, ``prompt`` lays out the
document first so its cache serves every request, ``window`` picks the lines
of a long file to show, ``drafter`` proposes what the program says next,
``decode`` is the loop (splices, speculation) and ``engine`` holds the caches
and runs one request.  The models themselves live in ``cad_lsp.backends``.

Names are resolved on first use, so that ``cad_lsp.engine.window`` or the seam
can be imported without PyTorch (the language server does, before any model
loads); ``from cad_lsp.engine import Engine`` is the public path.
"""

from importlib import import_module

_EXPORTS = {
    "backend": ("PREFILL_CHUNK", "EngineError", "Cancelled", "KVState", "ModelBackend"),
    "decode": ("Stats", "TeacherScript", "sync_prefix", "sample", "choose_token", "check_cancel", "copy_tokens",
               "expand", "decode_loop", "program_script", "autoregressive"),
    "engine": ("Engine", "EditResult", "ApplyJob", "plan_apply", "WARM_CHUNK"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value
