package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkPackageInstallLocal times `pi install ./pkg` of a local package (a process from start to
// exit: parse, trust, check, settings written); each iteration starts from an empty agent
// directory. With PI16 set to pi 1.6.0's dist/cli.js (and NODE to a Node 22 binary), pi's own
// command is timed beside it.
func BenchmarkPackageInstallLocal(b *testing.B) {
	targets := []struct {
		name string
		argv []string
	}{{"pi-go", []string{piBinary}}}
	if pi16 := os.Getenv("PI16"); pi16 != "" {
		node := os.Getenv("NODE")
		if node == "" {
			node = "node"
		}
		targets = append(targets, struct {
			name string
			argv []string
		}{"pi-1.6.0", []string{node, pi16}})
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			root := b.TempDir()
			proj := filepath.Join(root, "proj")
			pkg := filepath.Join(proj, "mypkg", "prompts")
			if err := os.MkdirAll(pkg, 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(proj, "mypkg", "package.json"), []byte(`{"name":"mypkg","pi":{"prompts":["./prompts"]}}`), 0o644); err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				agent := filepath.Join(root, "agent")
				if err := os.RemoveAll(agent); err != nil {
					b.Fatal(err)
				}
				argv := append(append([]string(nil), tg.argv...), "install", "./mypkg")
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = proj
				cmd.Env = []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=" + agent, "PI_OFFLINE=1"}
				b.StartTimer()
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
		})
	}
}
