"""The language server of ``rulebook lsp``: :mod:`.document` answers (no LSP library needed),
:mod:`.server` speaks LSP with pygls (the ``lsp`` extra)."""
