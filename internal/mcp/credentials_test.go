package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

// Rewriting mcp-auth.json keeps what pi-go does not know: other entries as they were, in their
// order, and the members of an entry (and of its nested objects) that pi-go does not read; members
// pi-go clears are removed. The file is written as pi writes it (two-space JSON, & unescaped).
func TestCredentialStoreKeepsUnknownMembers(t *testing.T) {
	dir := t.TempDir()
	s := NewCredentialStore(dir)
	before := `{
  "mcp__zeta|https://zeta.example/mcp?a=1&b=2": {
    "serverUrl": "https://zeta.example/mcp?a=1&b=2",
    "futureField": {"x": [1, 2]}
  },
  "https://docs.example/mcp": {
    "serverUrl": "https://docs.example/mcp",
    "clientInformation": {"client_id": "c1", "client_id_issued_at": 1767000000},
    "tokens": {"access_token": "old", "token_type": "Bearer", "id_token": "id-1"},
    "codeVerifier": "verifier",
    "discovery": {
      "authorizationServerUrl": "https://auth.example",
      "authorizationServerMetadata": {"issuer": "https://auth.example", "authorization_endpoint": "https://auth.example/authorize", "token_endpoint": "https://auth.example/token", "response_types_supported": ["code"], "client_id_metadata_document_supported": true},
      "scopeHint": "read"
    },
    "piOnly": true
  }
}
`
	if err := os.WriteFile(s.Path(), []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := s.load("docs", "https://docs.example/mcp")
	if err != nil || st == nil {
		t.Fatal(st, err)
	}
	st.Tokens.AccessToken = "new"
	st.CodeVerifier = ""
	if err := s.save("docs", "https://docs.example/mcp", st); err != nil {
		t.Fatal(err)
	}
	want := `{
  "mcp__zeta|https://zeta.example/mcp?a=1&b=2": {
    "serverUrl": "https://zeta.example/mcp?a=1&b=2",
    "futureField": {
      "x": [
        1,
        2
      ]
    }
  },
  "mcp__docs|https://docs.example/mcp": {
    "serverUrl": "https://docs.example/mcp",
    "clientInformation": {
      "client_id": "c1",
      "client_id_issued_at": 1767000000
    },
    "tokens": {
      "access_token": "new",
      "token_type": "Bearer",
      "id_token": "id-1"
    },
    "discovery": {
      "authorizationServerUrl": "https://auth.example",
      "authorizationServerMetadata": {
        "issuer": "https://auth.example",
        "authorization_endpoint": "https://auth.example/authorize",
        "token_endpoint": "https://auth.example/token",
        "response_types_supported": [
          "code"
        ],
        "client_id_metadata_document_supported": true
      },
      "scopeHint": "read"
    },
    "piOnly": true
  }
}
`
	data, _ := os.ReadFile(filepath.Join(dir, "mcp-auth.json"))
	if string(data) != want {
		t.Fatalf("mcp-auth.json:\n%s\nwant:\n%s", data, want)
	}
	info, _ := os.Stat(s.Path())
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", info.Mode())
	}
}
