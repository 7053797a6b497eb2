"""The language server: pygls handlers (``server``) over plain modules that know no pygls.

``protocol`` answers every JSON-RPC request exactly once before pygls sees it;
``documents`` keeps the editor's text by LSP's line rules; ``requests`` checks
what a command or code action asks; ``session`` is the state the helpers
share; ``progress`` shows and cancels work; ``model_work`` loads the model and
warms caches in threads; ``edit_flow`` runs one edit to one versioned
WorkspaceEdit.  Nothing here imports torch: the model is loaded through
``cad_lsp.backends`` inside a worker thread.
"""
