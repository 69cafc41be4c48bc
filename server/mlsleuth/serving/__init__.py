"""Everything behind ``mlsleuth serve`` except the server object itself.

``mlsleuth.mcp_server`` builds the :class:`~mcp.server.mcpserver.MCPServer`
and registers what lives here:

* :mod:`.paths` - confine every path argument to the served root;
* :mod:`.bounding` - page and size-cap reports so a result fits a model's context;
* :mod:`.running` - run blocking work on a worker thread, or a prepared child
  process, under a timeout with progress and cancellation;
* :mod:`.tools` - one module per MCP tool, listed in ``tools.TOOL_MODULES``;
* :mod:`.sweep_child` - the child process ``compare_sweep`` runs in (killable
  mid-read), and the bounded PNG it can return;
* :mod:`.skill_files` - find the skill's Markdown (wheel or checkout);
* :mod:`.resources`, :mod:`.prompts` - handbook resources and the debugging prompt;
* :mod:`.install` - ``mlsleuth install-skill``;
* :mod:`.http_auth` - the bearer-token gate for ``serve --http``.

Like the rest of the package, nothing here imports torch, numpy or scipy at
module level, so the server starts fast.
"""
