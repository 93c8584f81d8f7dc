package tui

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/pi-go/pi-go/internal/tui/screen/screentest"
)

// runUI runs Run with a pipe as the keyboard and a virtual terminal as the screen.
type runUI struct {
	keys *io.PipeWriter
	vt   *screentest.VTerm
	done chan error
}

func startRun(t *testing.T, ctx context.Context, opts Options, sc *script) *runUI {
	t.Helper()
	pr, pw := io.Pipe()
	vt := screentest.New(100, 30)
	opts.In, opts.Out, opts.Width, opts.Height = pr, vt, 100, 30
	sess := newTestSession(t, sc, nil)
	r := &runUI{keys: pw, vt: vt, done: make(chan error, 1)}
	go func() { r.done <- Run(ctx, sess, opts) }()
	t.Cleanup(func() { pw.Close() })
	return r
}

func (r *runUI) press(s string) { _, _ = io.WriteString(r.keys, s) }

func (r *runUI) wait(t *testing.T) error {
	t.Helper()
	select {
	case err := <-r.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
		return nil
	}
}

func TestRunPromptsAndQuitsCleanly(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	r := startRun(t, context.Background(), Options{Version: "0.1"}, newScript(textTurn("Answer from the model.")))
	screen := func() string { return strings.Join(r.vt.ScreenLines(), "\n") }
	r.vt.WaitFor(t, "the editor", screen, contains("pi-go v0.1", "test-model"))
	r.press("question")
	r.press("\r")
	r.vt.WaitFor(t, "the answer", screen, contains("question", "Answer from the model."))
	r.press("\x04") // Ctrl+D on the empty editor
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	all := strings.Join(r.vt.AllLines(), "\n")
	if strings.Contains(all, "test-model") || strings.Contains(all, "────") {
		t.Errorf("the live region (editor, footer) is left behind after quitting:\n%s", all)
	}
	if strings.Count(all, "Answer from the model.") != 1 || strings.Count(all, "question") != 1 {
		t.Errorf("the conversation must stay in the scrollback exactly once:\n%s", all)
	}
	// Bubble Tea's reader of a pipe cannot be cancelled: it ends when the keyboard closes.
	r.keys.Close()
}

func TestRunCtrlCTwiceQuits(t *testing.T) {
	r := startRun(t, context.Background(), Options{}, newScript())
	screen := func() string { return strings.Join(r.vt.ScreenLines(), "\n") }
	r.vt.WaitFor(t, "the editor", screen, contains("test-model"))
	r.press("some text")
	r.vt.WaitFor(t, "the typed text", screen, contains("some text"))
	r.press("\x03")
	r.vt.WaitFor(t, "the cleared editor", screen, func(s string) bool { return !strings.Contains(s, "some text") })
	r.press("\x03")
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestRunResumePickerCancelled(t *testing.T) {
	r := startRun(t, context.Background(), Options{ResumePicker: true, SessionsDir: t.TempDir()}, newScript())
	screen := func() string { return strings.Join(r.vt.ScreenLines(), "\n") }
	r.vt.WaitFor(t, "the picker", screen, contains("Resume Session (Current Folder)", "No sessions in current folder"))
	r.press("\x1b")
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if all := strings.Join(r.vt.AllLines(), "\n"); !strings.HasSuffix(all, "No session selected") {
		t.Errorf("want \"No session selected\" last, terminal:\n%s", all)
	}
}

func TestRunEndsWhenTheContextIsCancelled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx, cancel := context.WithCancel(context.Background())
	r := startRun(t, ctx, Options{}, newScript())
	r.vt.WaitFor(t, "the editor", func() string { return strings.Join(r.vt.ScreenLines(), "\n") }, contains("test-model"))
	cancel()
	if err := r.wait(t); err != nil {
		t.Fatalf("Run: %v", err)
	}
	r.keys.Close()
}

// Shift+Enter arrives as a CSI sequence Bubble Tea does not decode (kitty protocol, modifyOtherKeys).
func TestRunShiftEnterInsertsANewline(t *testing.T) {
	r := startRun(t, context.Background(), Options{}, newScript())
	screen := func() string { return strings.Join(r.vt.ScreenLines(), "\n") }
	r.vt.WaitFor(t, "the editor", screen, contains("test-model"))
	// One key at a time: Bubble Tea's message for an unknown sequence shares its read buffer.
	for _, k := range []struct{ key, editor string }{
		{"a", "a"}, {"\x1b[13;2u", "a\n"}, {"b", "a\nb"}, {"\x1b[27;2;13~", "a\nb\n"}, {"c", "a\nb\nc"},
	} {
		r.press(k.key)
		r.vt.WaitFor(t, "the editor to show "+strconv.Quote(k.editor), screen, func(s string) bool {
			return strings.TrimRight(editorOf(s), " ") == k.editor
		})
	}
	r.press("\x04")
	r.press("\x03\x03")
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
}
