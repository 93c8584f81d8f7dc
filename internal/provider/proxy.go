package provider

import (
	"net/http"
	"net/url"

	"golang.org/x/net/http/httpproxy"
)

// ProxyFromEnvironment is http.ProxyFromEnvironment reading HTTP_PROXY, HTTPS_PROXY and NO_PROXY
// at each request. net/http reads them once per process, on first use, and a dependency's package
// initialisation (the MCP SDK's oauthex probes http.DefaultTransport's proxy) uses them before pi-go
// has added the httpProxy setting to the environment.
func ProxyFromEnvironment(req *http.Request) (*url.URL, error) {
	return httpproxy.FromEnvironment().ProxyFunc()(req.URL)
}
