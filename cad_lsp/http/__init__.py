"""``cad-lsp http``: an OpenAI-compatible apply endpoint, a drop-in for hosted fast-apply models such as Morph.

A client that sends Morph's chat completion (``<code>``, ``<update>``,
optionally ``<instruction>`` in the last user message) gets the merged file
back, decided by the same ``Engine.apply`` the command line runs.  The layout
follows llama-cpp-python's server: ``settings`` (one typed object from the
flags), ``schema`` (what clients send and get), ``errors`` (every failure as
an OpenAI error object), ``model`` (the engine behind a bounded queue),
``guard`` (Host, key and body-size checks), ``app`` (the routes, thin) and
``server`` (uvicorn).
"""
