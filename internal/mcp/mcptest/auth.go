package mcptest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// AuthServer is an OAuth authorization server on 127.0.0.1 that registers any client, approves
// every authorization at once (redirecting to the callback) and issues short tokens; mcp is the MCP
// server it protects (answering 401 with resource_metadata without a valid token).
type AuthServer struct {
	// MCPURL is the protected MCP server's URL.
	MCPURL  string
	as, mcp *httptest.Server
	mu      sync.Mutex
	codes   map[string]string // code → PKCE challenge
	valid   map[string]bool   // access tokens
	refresh map[string]bool
	issued  int
	// expiresIn is the lifetime of issued access tokens, in seconds.
	expiresIn int
}

// NewAuthServer starts both servers on 127.0.0.1; they close when the test ends.
func NewAuthServer(t testing.TB) *AuthServer {
	a := &AuthServer{codes: map[string]string{}, valid: map[string]bool{}, refresh: map[string]bool{}, expiresIn: 3600}
	mux := http.NewServeMux()
	a.as = httptest.NewServer(mux)
	t.Cleanup(a.as.Close)
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": a.as.URL, "authorization_endpoint": a.as.URL + "/authorize", "token_endpoint": a.as.URL + "/token",
			"registration_endpoint": a.as.URL + "/register", "response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": "client-1", "redirect_uris": body["redirect_uris"], "client_name": body["client_name"]})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "client-1" || q.Get("resource") == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		a.mu.Lock()
		code := fmt.Sprintf("code-%d", len(a.codes))
		a.codes[code] = q.Get("code_challenge")
		a.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state"))+"&iss="+url.QueryEscape(a.as.URL), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		a.mu.Lock()
		defer a.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			challenge, ok := a.codes[r.Form.Get("code")]
			h := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			sum := base64.RawURLEncoding.EncodeToString(h[:])
			if !ok || sum != challenge {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			delete(a.codes, r.Form.Get("code"))
		case "refresh_token":
			if !a.refresh[r.Form.Get("refresh_token")] {
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		a.issued++
		access, refresh := fmt.Sprintf("access-%d", a.issued), fmt.Sprintf("refresh-%d", a.issued)
		a.valid[access], a.refresh[refresh] = true, true
		json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": a.expiresIn, "refresh_token": refresh})
	})
	server := New(Options{Name: "protected"})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	a.mcp = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			json.NewEncoder(w).Encode(map[string]any{"resource": a.mcp.URL + "/mcp", "authorization_servers": []string{a.as.URL}})
			return
		}
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		ok := a.valid[token]
		a.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+a.mcp.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(a.mcp.Close)
	a.MCPURL = a.mcp.URL + "/mcp"
	return a
}
