package rpc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/export"
	"github.com/pi-go/pi-go/internal/provider/openaitest"
)

// export_html answers pi's {"path": ...} and writes the page in the theme it was given; before any
// message it fails with pi's words.
func TestExportHTML(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	c := startClient(t, f.sess, ServeOptions{ExportTheme: export.Theme{Name: "light", Colors: map[string]string{"accent": "#123456"}}})
	r := c.call(map[string]any{"type": "export_html"})
	if r.obj["success"] != false || r.str("error") != "Nothing to export yet - start a conversation first" {
		t.Fatalf("before any message: %s", r.raw)
	}
	f.srv.Enqueue(openaitest.TextReply("mock-model", "exported **answer**"))
	runPrompt(t, c, "export me")
	out := filepath.Join(t.TempDir(), "s.html")
	data := c.ok(map[string]any{"type": "export_html", "outputPath": out}).(map[string]any)
	if data["path"] != out {
		t.Fatalf("data %v", data)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"export me", "<strong>answer</strong>", "--c-accent:#123456;", "color-scheme:light"} {
		if !strings.Contains(string(page), s) {
			t.Errorf("page lacks %q", s)
		}
	}
}
