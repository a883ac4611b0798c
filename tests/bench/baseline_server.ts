// B1's baseline: the smallest Deno stdio MCP server on the same SDK, run with the same permission flags as
// mero-mcp. One trivial tool, no worker, no node: what any server on this stack pays to start.

import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

serveStdio(() => {
  const server = new McpServer({ name: "baseline", version: "1.0.0" });
  server.registerTool(
    "echo",
    {
      description: "Echoes its text.",
      inputSchema: z.object({ text: z.string().describe("Text to echo.") }),
    },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
});
