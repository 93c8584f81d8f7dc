package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The page is opened in a real headless Chromium (Debian's chromium, installed by `make deps`).
// Every request the browser makes goes to a recording proxy on 127.0.0.1, which serves the page
// under a made-up host and answers nothing else: so the test sees any fetch the page attempts, and
// nothing can reach the network.

// chromiumPath finds Chromium (PI_GO_CHROMIUM names another binary). Without it the browser tests
// skip, or fail when PI_GO_REQUIRE_NODE=1 (as `make test` sets).
func chromiumPath(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("PI_GO_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const missing = "Chromium not found (install Debian's chromium: `make deps`, or set PI_GO_CHROMIUM)"
	if os.Getenv("PI_GO_REQUIRE_NODE") == "1" {
		t.Fatal(missing)
	}
	t.Skip(missing)
	return ""
}

const pageHost = "export.test"

// recordingProxy serves page at http://export.test/ and records every request the browser makes.
type recordingProxy struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRecordingProxy(t testing.TB, page []byte) *recordingProxy {
	p := &recordingProxy{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		url := r.Method + " " + r.Host + r.URL.Path
		p.mu.Lock()
		p.seen = append(p.seen, url)
		p.mu.Unlock()
		if r.Method == http.MethodGet && r.Host == pageHost && r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(page)
			return
		}
		http.Error(w, "no network in this test", http.StatusForbidden)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// browserServices are the hosts Chromium itself calls (updates, sign-in, field trials, autofill)
// even with background networking disabled; a page never names them.
var browserServices = regexp.MustCompile(`^[A-Z]+ [^ /]*(google\.com|googleapis\.com|gvt1\.com|gstatic\.com)(:443)?(/|$)`)

// requests are what the browser asked for, but its own favicon probe and its service calls.
func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, s := range p.seen {
		if !strings.HasSuffix(s, "/favicon.ico") && !browserServices.MatchString(s) {
			out = append(out, s)
		}
	}
	return out
}

// dumpDOM loads the proxy's page in headless Chromium and returns the DOM after the load event, and
// the CPU time Chromium spent in all (the machine is shared: CPU time is the steadier figure).
func dumpDOM(t testing.TB, chromium string, proxy *recordingProxy) (string, time.Duration) {
	t.Helper()
	ctx, cancel := browserContext(t)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--disable-extensions", "--disable-default-apps", "--no-default-browser-check",
		"--disable-client-side-phishing-detection", "--disable-domain-reliability",
		"--disable-features=OptimizationHints,AutofillServerCommunication,MediaRouter,Translate",
		"--user-data-dir="+t.TempDir(),
		"--proxy-server="+strings.TrimPrefix(proxy.srv.URL, "http://"), "--proxy-bypass-list=<-loopback>",
		"--dump-dom", "http://"+pageHost+"/")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	// wait4's usage of the browser process includes the renderers and helpers it reaped.
	return stdout.String(), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// browserContext bounds a browser run by the test itself rather than by a guess at how long a page
// takes (a loaded machine only makes it slower): it ends with the test, or shortly before go test's
// -timeout would end the binary, so a browser that hangs is killed and its output reported.
func browserContext(t testing.TB) (context.Context, context.CancelFunc) {
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := dt.Deadline(); ok {
			return context.WithDeadline(t.Context(), deadline.Add(-10*time.Second))
		}
	}
	return context.WithCancel(t.Context())
}

// The checks below can fail: the recording proxy sees the fetch of a page without a policy, and in
// the exported page (whose policy refuses it) the probe sees the refusal.
func TestBrowserProbesSeeFetches(t *testing.T) {
	chromium := chromiumPath(t)
	_, _, requests := loadProbed(t, chromium, []byte(`<!DOCTYPE html><html><head></head><body><img src="http://remote.example/x.png"></body></html>`), false)
	if got := strings.Join(requests, "\n"); !strings.Contains(got, "GET remote.example/x.png") {
		t.Fatalf("the remote image was not seen; requests:\n%s", got)
	}
	page := renderHTML(t, openFixture(t, "rich.jsonl"), HTMLOptions{})
	page = strings.Replace(page, `<div id="entries">`, `<div id="entries"><img src="http://remote.example/y.png">`, 1)
	_, probe, requests := loadProbed(t, chromium, []byte(page), false)
	if len(probe.Refused) != 1 || !strings.Contains(probe.Refused[0], "remote.example/y.png") || len(requests) != 1 {
		t.Fatalf("refused %v, requests %v", probe.Refused, requests)
	}
}

// The exported page renders in Chromium with its structure, runs its script, and fetches nothing.
func TestBrowserRendersTheExportOffline(t *testing.T) {
	chromium := chromiumPath(t)
	page := renderHTML(t, openFixture(t, "rich.jsonl"), HTMLOptions{})
	dom, probe := probePage(t, chromium, []byte(page), false)
	for _, want := range []string{
		`<body data-ready="1">`, // the page's script ran to its end
		`<article class="e k-assistant off" id="e-b0000001"`,
		`<span class="hk">func</span>`,
		`<img class="img" alt="image" loading="lazy" src="data:image/png;base64,`,
		`<span class="label">first answer</span>`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %q", want)
		}
	}
	// Opening a long output shows its remainder.
	if !strings.HasPrefix(probe.Expanded, "line 11\nline 12\n") || !strings.HasSuffix(probe.Expanded, "line 30") {
		t.Errorf("the opened output shows %q", probe.Expanded)
	}
	if n := len(regexp.MustCompile(`<article `).FindAllString(dom, -1)); n != 16 {
		t.Errorf("%d articles in the DOM, want 16", n)
	}
}

// recorderScript goes first into <head>: it notes every fetch the content security policy refused,
// that is every fetch the page attempted.
const recorderScript = `<script>window.__refused = []; document.addEventListener("securitypolicyviolation", function (e) { window.__refused.push(e.blockedURI); });</script>`

// probeScript is appended to the page by the responsiveness checks: after the load event it forces
// a layout, opens a side branch from the tree, shows all branches and scrolls to the end, timing each
// step including the layout it causes, then empties the transcript so that the dumped DOM is small,
// and reports the figures in a <pre id="probe">.
const probeScript = `<script>
window.addEventListener("load", function () {
  var out = {}, t;
  out.refused = window.__refused;
  out.resources = performance.getEntriesByType("resource").map(function (r) { return r.name; });
  var more = document.querySelector("details.more");
  if (more) {
    more.open = true;
    more.dispatchEvent(new Event("toggle"));
    out.expanded = more.querySelector("pre").textContent;
  }
  if (!document.body.hasAttribute("data-probe-interact")) { report(); return; }
  function step(name, fn) { t = performance.now(); fn(); document.body.offsetHeight; out[name] = Math.round(performance.now() - t); }
  var nav = performance.getEntriesByType("navigation")[0];
  out.loadMs = Math.round(nav.loadEventStart);
  step("firstLayoutMs", function () {});
  var side = document.querySelector("#tree-rows .row:not(.on)");
  step("openBranchMs", function () { side.click(); });
  out.branchShown = !document.getElementById("e-" + side.getAttribute("data-id")).classList.contains("off");
  step("showAllMs", function () { document.querySelector("[data-toggle=show-all]").click(); });
  step("scrollEndMs", function () { window.scrollTo(0, document.body.scrollHeight); });
  out.articles = document.querySelectorAll("#entries > article").length;
  document.getElementById("entries").textContent = "";
  document.getElementById("tree-rows").textContent = "";
  report();
  function report() {
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
  }
});
</script>`

// probePage loads a page with recorderScript and probeScript added (and, when interact, the
// responsiveness steps) and returns the DOM and the probe's figures. It fails when the page asked
// the proxy for anything but itself, loaded a resource, or had a fetch refused.
func probePage(t testing.TB, chromium string, page []byte, interact bool) (string, probeResult) {
	t.Helper()
	dom, r, requests := loadProbed(t, chromium, page, interact)
	if len(requests) != 1 || requests[0] != "GET "+pageHost+"/" {
		t.Fatalf("the browser asked the network for: %v", requests)
	}
	if len(r.Refused) > 0 || len(r.Resources) > 0 {
		t.Fatalf("the page tried to fetch %v and fetched %v", r.Refused, r.Resources)
	}
	return dom, r
}

// loadProbed is probePage without the checks: the DOM, the probe's figures and the requests the
// proxy saw.
func loadProbed(t testing.TB, chromium string, page []byte, interact bool) (string, probeResult, []string) {
	t.Helper()
	head := bytes.Index(page, []byte("<head>"))
	body := bytes.LastIndex(page, []byte("</body>"))
	if head < 0 || body < 0 {
		t.Fatal("no <head> or </body> in the page")
	}
	head += len("<head>")
	var probed bytes.Buffer
	probed.Write(page[:head])
	probed.WriteString(recorderScript)
	probed.Write(page[head:body])
	if interact {
		probed.WriteString(`<script>document.body.setAttribute("data-probe-interact", "")</script>`)
	}
	probed.WriteString(probeScript)
	probed.Write(page[body:])
	proxy := newRecordingProxy(t, probed.Bytes())
	dom, cpu := dumpDOM(t, chromium, proxy)
	m := regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal(errors.New("no probe result in the DOM (the page's script failed?)"))
	}
	var r probeResult
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &r); err != nil {
		t.Fatalf("probe %s: %v", m[1], err)
	}
	r.CPU = cpu
	return dom, r, proxy.requests()
}

// probeResult is what probeScript reports.
type probeResult struct {
	Refused, Resources                                          []string
	LoadMs, FirstLayoutMs, OpenBranchMs, ShowAllMs, ScrollEndMs float64
	BranchShown                                                 bool
	Expanded                                                    string
	CPU                                                         time.Duration // Chromium's, from start to exit
	Articles                                                    int
}

// The page of a 50 MB session opens in Chromium, its tree opens a side branch and its toggles work
// (BenchmarkBrowserExport50MB reports the timings).
func TestBrowserOpensA50MBExport(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 50 MB page")
	}
	chromium := chromiumPath(t)
	dir := t.TempDir()
	page := bigPage(t, dir)
	_, probe := probePage(t, chromium, page, true)
	if !probe.BranchShown || probe.Articles < 10000 {
		t.Fatalf("probe: %+v", probe)
	}
	t.Logf("50 MB session, %.1f MB page: %+v", float64(len(page))/(1<<20), probe)
}

// bigPage exports a generated 50 MB session and returns the page.
func bigPage(t testing.TB, dir string) []byte {
	t.Helper()
	m := openPath(t, writeBigSession(t, dir, 50<<20))
	out := filepath.Join(dir, "big.html")
	if _, err := HTMLFile(context.Background(), FromManager(m), out, "", HTMLOptions{Theme: testTheme()}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// BenchmarkBrowserExport50MB opens the page of a generated 50 MB session in headless Chromium and
// reports, in milliseconds as the page measures them: load (parse and script, to the load event),
// the first layout, opening a side branch from the tree, showing all branches and scrolling to the
// end, each with the layout it causes.
func BenchmarkBrowserExport50MB(b *testing.B) {
	chromium := chromiumPath(b)
	page := bigPage(b, b.TempDir())
	var sum probeResult
	b.ResetTimer()
	for range b.N {
		_, p := probePage(b, chromium, page, true)
		sum.LoadMs += p.LoadMs
		sum.FirstLayoutMs += p.FirstLayoutMs
		sum.OpenBranchMs += p.OpenBranchMs
		sum.ShowAllMs += p.ShowAllMs
		sum.ScrollEndMs += p.ScrollEndMs
		sum.CPU += p.CPU
	}
	n := float64(b.N)
	b.ReportMetric(sum.LoadMs/n, "load-ms")
	b.ReportMetric(sum.FirstLayoutMs/n, "layout-ms")
	b.ReportMetric(sum.OpenBranchMs/n, "branch-ms")
	b.ReportMetric(sum.ShowAllMs/n, "showall-ms")
	b.ReportMetric(sum.ScrollEndMs/n, "scroll-ms")
	b.ReportMetric(sum.CPU.Seconds()/n, "chromium-cpu-s")
	b.ReportMetric(float64(len(page))/(1<<20), "page-MB")
}
