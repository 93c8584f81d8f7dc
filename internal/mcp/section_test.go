package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// pi16 finds Node 22 and pi 1.6.0's package: the test cache `make deps` fills (PI_GO_TEST_CACHE,
// default $HOME/.cache/pi-go-test), then /opt/pi. Missing, the test is skipped, or fails under
// PI_GO_REQUIRE_NODE=1.
func pi16(t *testing.T) (node, pkg string) {
	t.Helper()
	cache := os.Getenv("PI_GO_TEST_CACHE")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache", "pi-go-test")
		}
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	nodePath := filepath.Join("node_modules", "node-"+runtime.GOOS+"-"+arch, "bin", "node")
	const pkgPath = "node_modules/@earendil-works/pi-coding-agent"
	candidates := [][2]string{
		{filepath.Join(cache, "node-22.23.5", nodePath), filepath.Join(cache, "pi-1.6.0", pkgPath)},
		{filepath.Join("/opt/pi/node22", nodePath), filepath.Join("/opt/pi/pi16", pkgPath)},
	}
	var tried []string
	for _, c := range candidates {
		_, nodeErr := os.Stat(c[0])
		_, pkgErr := os.Stat(filepath.Join(c[1], "dist", "extensions", "mcp", "index.js"))
		if nodeErr == nil && pkgErr == nil {
			return c[0], c[1]
		}
		tried = append(tried, c[0]+" with "+c[1])
	}
	msg := "Node 22 and pi 1.6.0 not found (run `make deps`); tried " + strings.Join(tried, "; ")
	if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}

// sectionServer is one server of a scenario, in the shape pi's renderServersSection reads.
type sectionServer struct {
	Name         string            `json:"name"`
	Exposure     string            `json:"exposure,omitempty"`
	ToolExposure map[string]string `json:"toolExposure,omitempty"`
	Description  string            `json:"description,omitempty"`
	Disabled     bool              `json:"disabled,omitempty"`
	Instructions string            `json:"instructions,omitempty"`
}

// renderWithPi renders every scenario with pi's own renderServersSection.
func renderWithPi(t *testing.T, scenarios [][]sectionServer) []string {
	node, pkg := pi16(t)
	script := `
const [pkg, file] = process.argv.slice(1);
const { renderServersSection } = await import(pkg + "/dist/extensions/mcp/index.js");
const fs = await import("node:fs");
const scenarios = JSON.parse(fs.readFileSync(file, "utf8"));
const out = scenarios.map((servers) => renderServersSection(servers.map((s) => ({
	entry: { name: s.name, config: { command: "x",
		...(s.exposure ? { exposure: s.exposure } : {}),
		...(s.toolExposure ? { toolExposure: s.toolExposure } : {}),
		...(s.description ? { description: s.description } : {}),
		...(s.disabled ? { enabled: false } : {}) } },
	...(s.instructions ? { connection: { instructions: s.instructions } } : {}),
}))) ?? "");
process.stdout.write(JSON.stringify(out));
`
	dir := t.TempDir()
	input, _ := json.Marshal(scenarios)
	file := filepath.Join(dir, "scenarios.json")
	if err := os.WriteFile(file, input, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "--input-type=module", "-e", script, pkg, file)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pi's renderServersSection: %v", err)
	}
	var texts []string
	if err := json.Unmarshal(out, &texts); err != nil {
		t.Fatal(err)
	}
	return texts
}

func renderWithPiGo(servers []sectionServer) string {
	var statuses []Status
	for _, s := range servers {
		cfg := ServerConfig{Command: "x", Enabled: !s.Disabled, Exposure: Exposure(s.Exposure), Description: s.Description}
		for pattern, e := range s.ToolExposure {
			cfg.ToolExposure = append(cfg.ToolExposure, ToolExposureRule{Pattern: pattern, Exposure: Exposure(e)})
		}
		statuses = append(statuses, Status{Server: Server{Name: s.Name, Config: cfg}, Instructions: s.Instructions})
	}
	return ServersSection(statuses)
}

// asDeferred is a scenario as pi sees the same servers with codemode served by tool_search.
func asDeferred(servers []sectionServer) []sectionServer {
	out := make([]sectionServer, len(servers))
	for i, s := range servers {
		if s.Exposure == "" || s.Exposure == "codemode" {
			s.Exposure = "deferred"
		}
		te := map[string]string{}
		for k, v := range s.ToolExposure {
			if v == "codemode" {
				v = "deferred"
			}
			te[k] = v
		}
		if len(te) > 0 {
			s.ToolExposure = te
		}
		out[i] = s
	}
	return out
}

func TestServersSectionIsPisText(t *testing.T) {
	many := make([]sectionServer, 0, 400)
	for i := range 400 {
		many = append(many, sectionServer{Name: fmt.Sprintf("server-with-a-rather-long-name-%03d", i), Exposure: "deferred",
			Description: strings.Repeat("describes what it offers ", 20)})
	}
	shrinking := make([]sectionServer, 0, 40)
	for i := range 40 {
		shrinking = append(shrinking, sectionServer{Name: fmt.Sprintf("s%d", i), Exposure: "deferred",
			Description: "Tools 🙂 for " + strings.Repeat("ü", i*7) + " and more text to fill the line well past its share"})
	}
	scenarios := [][]sectionServer{
		{},
		{{Name: "only-direct", Exposure: "direct"}, {Name: "hidden", Exposure: "hidden"}},
		{
			{Name: "docs", Exposure: "deferred", Description: "  Search and read the product documentation\nsecond line"},
			{Name: "github", Exposure: "direct", ToolExposure: map[string]string{"search_*": "deferred"}},
			{Name: "instr", Exposure: "deferred", Instructions: "\n Test tools for pi-go.\nMore."},
			{Name: "off", Exposure: "deferred", Disabled: true},
			{Name: "Zeta", Exposure: "deferred"}, {Name: "alpha", Exposure: "deferred"}, {Name: "a_b", Exposure: "deferred"},
			{Name: "a-c", Exposure: "deferred"}, {Name: "a1", Exposure: "deferred"}, {Name: "B", Exposure: "deferred"},
			{Name: "b", Exposure: "deferred"}, {Name: "A_b", Exposure: "deferred"},
			{Name: "emoji", Exposure: "deferred", Description: strings.Repeat("x", 248) + "🙂🙂 tail"},
			{Name: "spaces", Exposure: "deferred", Description: strings.Repeat("y", 240) + "         z"},
		},
		many,
		shrinking,
	}
	want := renderWithPi(t, scenarios)
	for i, s := range scenarios {
		if got := renderWithPiGo(s); got != want[i] {
			t.Errorf("scenario %d:\npi-go:\n%s\npi:\n%s", i, got, want[i])
		}
	}
	// pi-go serves codemode exposure through tool_search: its section is pi's for deferred servers.
	codemode := [][]sectionServer{{
		{Name: "default"}, {Name: "code", Exposure: "codemode", Description: "Runs scripts"},
		{Name: "mixed", Exposure: "direct", ToolExposure: map[string]string{"get_*": "codemode"}},
	}}
	want = renderWithPi(t, [][]sectionServer{asDeferred(codemode[0])})
	if got := renderWithPiGo(codemode[0]); got != want[0] {
		t.Errorf("codemode servers:\npi-go:\n%s\npi (deferred):\n%s", got, want[0])
	}
}

// The footer reads the system prompt on every frame, so the section is rendered that often.
func BenchmarkServersSection50(b *testing.B) {
	var statuses []Status
	for i := range 50 {
		statuses = append(statuses, Status{Server: Server{Name: fmt.Sprintf("server-%02d", i),
			Config: ServerConfig{Command: "x", Enabled: true, Description: "Search and read the product documentation"}}})
	}
	b.ReportAllocs()
	for b.Loop() {
		if ServersSection(statuses) == "" {
			b.Fatal("empty")
		}
	}
}
