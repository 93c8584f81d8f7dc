package config

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func TestExtensionProviderModelsAndAuth(t *testing.T) {
	raw := json.RawMessage(`{"name":"Acme","baseUrl":"http://acme/v1","apiKey":"$ACME_KEY","api":"openai-completions",
		"headers":{"X-A":"1"},"models":[
		{"id":"chat","name":"Chat","reasoning":true,"input":["text","image"],"contextWindow":1000,"maxTokens":100},
		{"id":"img","type":"image","api":"media","input":["text"]},
		{"id":"odd","api":"bedrock-converse-stream"},
		{"id":"own","api":"acme-stream"}]}`)
	ep, err := ParseExtensionProvider("acme", raw)
	if err != nil {
		t.Fatal(err)
	}
	models, replaces, skipped := ep.ChatModels("acme-stream")
	if !replaces || len(models) != 2 || models[0].ID != "chat" || models[1].ID != "own" || models[1].API != "acme-stream" {
		t.Fatalf("models: %+v", models)
	}
	if m := models[0]; m.BaseURL != "http://acme/v1" || !m.Reasoning || m.ContextWindow != 1000 || m.MaxTokens != 100 || !m.SupportsImages() {
		t.Fatalf("chat: %+v", m)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], "acme/odd") {
		t.Fatalf("skipped: %v", skipped)
	}

	// The extension's key and headers count above models.json's; removing them restores those.
	models2 := &ModelsConfig{Providers: []ProviderConfig{{Name: "acme", APIKey: "file-key", Headers: map[string]string{"X-F": "f"}}}, byName: map[string]int{"acme": 0}}
	a := NewAuth(AuthOptions{Getenv: envMap(map[string]string{"ACME_KEY": "ext-key"}), Models: models2})
	a.SetExtensionProvider(ep)
	ra, err := a.RequestAuth(context.Background(), &provider.Model{Provider: "acme", ID: "chat"})
	if err != nil {
		t.Fatal(err)
	}
	if ra.APIKey.Reveal() != "ext-key" || ra.Headers["X-A"] != "1" || ra.Headers["X-F"] != "f" {
		t.Fatalf("with the extension: %s %v", ra.APIKey.Reveal(), ra.Headers)
	}
	a.RemoveExtensionProvider("acme")
	if key, _, _ := a.APIKey(context.Background(), "acme"); key.Reveal() != "file-key" {
		t.Fatalf("after removal: %s", key.Reveal())
	}

	// A provider only an extension knows, whose key names an unset variable, has no auth.
	b := NewAuth(AuthOptions{Getenv: envMap(nil)})
	b.SetExtensionProvider(ep)
	if b.HasAuth("acme") {
		t.Fatal("unset $ACME_KEY counts as auth")
	}

	// A config with only a base URL re-routes: it replaces no models.
	only, _ := ParseExtensionProvider("anthropic", json.RawMessage(`{"baseUrl":"http://proxy"}`))
	if _, replaces, _ := only.ChatModels(""); replaces {
		t.Fatal("a baseUrl-only config replaces models")
	}
}

func TestMergeProviderConfig(t *testing.T) {
	got, err := MergeProviderConfig(json.RawMessage(`{"baseUrl":"a","apiKey":"k"}`), json.RawMessage(`{"baseUrl":"b","headers":null}`))
	if err != nil || string(got) != `{"apiKey":"k","baseUrl":"b"}` {
		t.Fatalf("%s %v", got, err)
	}
}
