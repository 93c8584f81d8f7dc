// Package npmtest is test support for the package manager: an npm registry on 127.0.0.1 that serves
// packages published from a test (package documents and tarballs, nothing else), and the
// environment that points npm at it with a private cache and no user configuration.
package npmtest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Registry is a loopback npm registry.
type Registry struct {
	URL string

	mu       sync.Mutex
	packages map[string]*pkg
	dir      string
}

type pkg struct {
	versions map[string][]byte // version → tarball
	order    []string          // publication order; the last is "latest"
}

// Start starts a registry that stops when the test ends.
func Start(t testing.TB) *Registry {
	r := &Registry{packages: map[string]*pkg{}, dir: t.TempDir()}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL + "/"
	return r
}

// Publish adds a version of a package: files are its contents by relative path; a package.json with
// the name and version is written unless files holds one.
func (r *Registry) Publish(t testing.TB, name, version string, files map[string]string) {
	t.Helper()
	if _, ok := files["package.json"]; !ok {
		files["package.json"] = `{"name":"` + name + `","version":"` + version + `"}`
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		body := []byte(files[n])
		mode := int64(0o644)
		if strings.HasPrefix(files[n], "#!") {
			mode = 0o755 // a script runs as it would from a published package
		}
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + n, Mode: mode, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.packages[name]
	if p == nil {
		p = &pkg{versions: map[string][]byte{}}
		r.packages[name] = p
	}
	p.versions[version] = buf.Bytes()
	p.order = append(p.order, version)
}

// Env is the environment npm needs to use only this registry: a private cache and empty user and
// global configuration, no update notifier, no audit.
func (r *Registry) Env() []string {
	return []string{
		"npm_config_registry=" + r.URL,
		"npm_config_cache=" + filepath.Join(r.dir, "cache"),
		"npm_config_userconfig=" + filepath.Join(r.dir, "npmrc"),
		"npm_config_globalconfig=" + filepath.Join(r.dir, "global-npmrc"),
		"npm_config_update_notifier=false",
		"npm_config_audit=false",
		"npm_config_fund=false",
		"npm_config_loglevel=error",
		"npm_config_prefer_online=true",
	}
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	path, err := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if name, file, ok := strings.Cut(path, "/-/"); ok {
		p := r.packages[name]
		if p != nil {
			for v, tgz := range p.versions {
				if file == tarballName(name, v) {
					w.Header().Set("Content-Type", "application/octet-stream")
					w.Write(tgz)
					return
				}
			}
		}
		http.NotFound(w, req)
		return
	}
	p := r.packages[path]
	if p == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"Not found"}`))
		return
	}
	versions := map[string]any{}
	for v, tgz := range p.versions {
		s512 := sha512.Sum512(tgz)
		s1 := sha1.Sum(tgz)
		versions[v] = map[string]any{
			"name": path, "version": v,
			"dist": map[string]any{
				"tarball":   r.URL + path + "/-/" + tarballName(path, v),
				"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]),
				"shasum":    hex.EncodeToString(s1[:]),
			},
		}
	}
	doc := map[string]any{
		"name":      path,
		"dist-tags": map[string]string{"latest": p.order[len(p.order)-1]},
		"versions":  versions,
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}

func tarballName(name, version string) string {
	base := name
	if i := strings.LastIndex(name, "/"); i >= 0 {
		base = name[i+1:]
	}
	return base + "-" + version + ".tgz"
}
