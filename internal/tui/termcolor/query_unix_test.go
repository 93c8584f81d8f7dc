//go:build unix

package termcolor

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pi-go/pi-go/internal/tui/theme"
)

func TestQuery(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var asked strings.Builder
	// The terminal's answer is already waiting: Query returns on the DA1 reply, not at the timeout.
	if _, err := io.WriteString(w, "\x1b]11;rgb:ffff/ffff/ffff\x07\x1b[?62c"); err != nil {
		t.Fatal(err)
	}
	bg, fg := Query(r, &asked, time.Hour)
	if bg == nil || *bg != (theme.RGB{R: 255, G: 255, B: 255}) || fg != nil {
		t.Errorf("Query = %v, %v", bg, fg)
	}
	if asked.String() != query {
		t.Errorf("wrote %q", asked.String())
	}
	// No answer: nil colours once the timeout passes.
	if bg, fg := Query(r, io.Discard, time.Millisecond); bg != nil || fg != nil {
		t.Errorf("silent terminal: %v, %v", bg, fg)
	}
}
