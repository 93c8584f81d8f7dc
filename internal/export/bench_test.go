package export

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pi-go/pi-go/internal/cputime"
	"github.com/pi-go/pi-go/internal/session"
)

// BenchmarkExportHTML50MB exports a generated 50 MB session to a file: the target is under
// 2 s. It reports the page's size and the CPU time per export. PI_GO_EXPORT_BENCH_MB sets another
// session size (for profiling).
func BenchmarkExportHTML50MB(b *testing.B) {
	dir := b.TempDir()
	size := int64(50 << 20)
	if s := os.Getenv("PI_GO_EXPORT_BENCH_MB"); s != "" {
		mb, _ := strconv.Atoi(s)
		size = int64(mb) << 20
	}
	path := writeBigSession(b, dir, size)
	m, err := session.Open(path, session.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	st, _ := os.Stat(path)
	src := FromManager(m)
	out := filepath.Join(dir, "out.html")
	b.SetBytes(st.Size())
	cpu0, cpuOK := cputime.Process()
	b.ResetTimer()
	for range b.N {
		if _, err := HTMLFile(context.Background(), src, out, "", HTMLOptions{Theme: testTheme()}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// The machine is shared: CPU time per export says what the code costs when wall time is
	// inflated by other processes.
	if cpu1, ok := cputime.Process(); ok && cpuOK {
		b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	}
	if hst, err := os.Stat(out); err == nil {
		b.ReportMetric(float64(hst.Size())/(1<<20), "html-MB")
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "session-MB")
}
