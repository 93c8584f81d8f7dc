// Package mcp is pi-go's Model Context Protocol client, built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk): servers configured in mcp.json as pi 1.6 configures them
// (the user's ~/.pi/agent/mcp.json and, in trusted projects, .pi/mcp.json), connected in the
// background over stdio or streamable HTTP, and their tools exposed to the model as pi exposes them
// (mcp__<server>__<tool>, hidden behind tool_search by default, or declared directly).
//
// It knows the loop's Tool interface and the config package's value resolver and paths; it knows
// nothing of the harness, the TUI or any provider.
package mcp
