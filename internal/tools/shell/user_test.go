package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pi-go/pi-go/internal/provider"
)

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := provider.MarshalJS(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRunUser(t *testing.T) {
	dir := t.TempDir()
	var chunks []string
	res, err := RunUser(testContext(t),
		`printf '\033[31mred\033[0m\r\nbell\a\tand\x01ctl\n'; printf '\033]8;;http://x\033\\link\033]8;;\033\\\n'; exit 4`,
		dir, Options{}, func(s string) { chunks = append(chunks, s) })
	if err != nil {
		t.Fatal(err)
	}
	want := "red\nbell\tandctl\nlink\n"
	if res.Output != want || strings.Join(chunks, "") != want {
		t.Fatalf("output %q chunks %q", res.Output, chunks)
	}
	if res.ExitCode == nil || *res.ExitCode != 4 || res.Cancelled || res.Truncated || res.FullOutputPath != "" {
		t.Fatalf("result %+v", res)
	}

	if _, err := RunUser(testContext(t), "true", filepath.Join(dir, "nope"), Options{}, nil); err == nil ||
		!strings.HasPrefix(err.Error(), "Working directory does not exist") {
		t.Fatalf("missing cwd: %v", err)
	}
}

func TestRunUserSpillsSanitisedOutput(t *testing.T) {
	res, err := RunUser(testContext(t), `for i in $(seq 1 3000); do printf '\033[1mline %d\033[0m\r\n' $i; done`,
		t.TempDir(), Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.FullOutputPath == "" {
		t.Fatalf("result %+v", res)
	}
	t.Cleanup(func() { os.Remove(res.FullOutputPath) })
	full, err := os.ReadFile(res.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 1; i <= 3000; i++ {
		want.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	if string(full) != want.String() {
		t.Fatalf("spill file is not the sanitised output (%d bytes)", len(full))
	}
	if !strings.HasPrefix(res.Output, "line 1002\n") || !strings.HasSuffix(res.Output, "line 3000\n") {
		t.Fatalf("output head %q", res.Output[:20])
	}
}

func TestRunUserCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	got := make(chan struct{})
	var once bool
	res, err := RunUser(ctx, "echo ready; sleep 300", t.TempDir(), Options{}, func(s string) {
		if !once {
			once = true
			close(got)
			cancel()
		}
	})
	<-got
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.ExitCode != nil || res.Output != "ready\n" {
		t.Fatalf("result %+v", res)
	}
}

func TestANSIStripperAcrossChunks(t *testing.T) {
	var s ansiStripper
	parts := []string{"a\x1b", "[3", "1mb\x1b]8;;http://e", "xample\x07c\x1b[0", "m"}
	var out strings.Builder
	for _, p := range parts {
		out.WriteString(s.strip(p, false))
	}
	out.WriteString(s.strip("", true))
	if out.String() != "abc" {
		t.Fatalf("got %q", out.String())
	}
}

func TestUserResultJSONMatchesPi(t *testing.T) {
	code := 0
	got := jsonOf(t, UserResult{Output: "hi\n", ExitCode: &code})
	if got != `{"output":"hi\n","exitCode":0,"cancelled":false,"truncated":false}` {
		t.Fatalf("got %s", got)
	}
	got = jsonOf(t, UserResult{Output: "x", Cancelled: true, Truncated: true, FullOutputPath: "/tmp/pi-bash-0.log"})
	if got != `{"output":"x","cancelled":true,"truncated":true,"fullOutputPath":"/tmp/pi-bash-0.log"}` {
		t.Fatalf("got %s", got)
	}
}
