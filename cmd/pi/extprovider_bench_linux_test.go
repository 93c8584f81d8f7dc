package main

import (
	"os"
	"path/filepath"
	"testing"
)

// writeProviderExtension puts into agentDir an extension that registers the provider bench-ext
// with the model test-model (an OpenAI-compatible endpoint nobody is asked before a prompt).
func writeProviderExtension(tb testing.TB, agentDir string) {
	tb.Helper()
	src := `export default function (pi) {
	pi.registerProvider("bench-ext", {
		baseUrl: "http://127.0.0.1:9/v1", apiKey: "none", api: "openai-completions",
		models: [{ id: "test-model", name: "Test", reasoning: false, input: ["text"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 8000, maxTokens: 512 }],
	});
}
`
	dir := filepath.Join(agentDir, "extensions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "provider.ts"), []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
}
