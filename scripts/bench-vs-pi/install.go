package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The pi that pi-go is measured against, and the Node it needs (pi 1.6 wants Node >= 22.19). The
// Makefile's deps target installs the same versions into the same cache for cmd/pi's RpcClient test.
const (
	nodeVersion = "22.23.5"
	piVersion   = "1.6.0"
	piPackage   = "@earendil-works/pi-coding-agent"
)

// piInstall is where Node and pi's cli.js are.
type piInstall struct {
	node, cli string
}

// installPi finds Node 22 and pi 1.6.0 in cache, installing them there with npm when absent (the cache
// lies outside the repository; a second run reuses it).
func installPi(cache string) (piInstall, error) {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		return piInstall{}, fmt.Errorf("no Node package on npm for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	nodePkg := "node-" + runtime.GOOS + "-" + arch
	nodeDir := filepath.Join(cache, "node-"+nodeVersion)
	piDir := filepath.Join(cache, "pi-"+piVersion)
	in := piInstall{
		node: filepath.Join(nodeDir, "node_modules", nodePkg, "bin", "node"),
		cli:  filepath.Join(piDir, "node_modules", piPackage, "dist", "cli.js"),
	}
	for _, step := range []struct{ have, dir, spec string }{
		{in.node, nodeDir, nodePkg + "@" + nodeVersion},
		{in.cli, piDir, piPackage + "@" + piVersion},
	} {
		if _, err := os.Stat(step.have); err == nil {
			continue
		}
		if _, err := exec.LookPath("npm"); err != nil {
			return piInstall{}, fmt.Errorf("installing %s needs npm (Debian: apt-get install npm): %w", step.spec, err)
		}
		fmt.Fprintf(os.Stderr, "installing %s into %s\n", step.spec, step.dir)
		cmd := exec.Command("npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", step.dir, step.spec)
		if out, err := cmd.CombinedOutput(); err != nil {
			return piInstall{}, fmt.Errorf("npm install %s: %w\n%s", step.spec, err, out)
		}
		if _, err := os.Stat(step.have); err != nil {
			return piInstall{}, fmt.Errorf("npm installed %s but %s is missing", step.spec, step.have)
		}
	}
	out, err := exec.Command(in.node, in.cli, "--version").Output()
	if err != nil {
		return piInstall{}, fmt.Errorf("%s %s --version: %w", in.node, in.cli, err)
	}
	if v := strings.TrimSpace(string(out)); v != piVersion {
		return piInstall{}, fmt.Errorf("%s says it is pi %q, want %s", in.cli, v, piVersion)
	}
	return in, nil
}

// defaultCache is the Makefile's PI_TEST_CACHE: $PI_GO_TEST_CACHE, else ~/.cache/pi-go-test.
func defaultCache() string {
	if c := os.Getenv("PI_GO_TEST_CACHE"); c != "" {
		return c
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".cache", "pi-go-test")
	}
	return filepath.Join(os.TempDir(), "pi-go-test-cache")
}
