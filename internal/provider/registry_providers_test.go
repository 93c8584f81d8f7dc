package provider

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func ids(models []*Model) string {
	var out []string
	for _, m := range models {
		out = append(out, m.Provider+"/"+m.ID+"@"+m.BaseURL)
	}
	return strings.Join(out, " ")
}

func TestRegisteredProvidersReplaceRerouteAndRestore(t *testing.T) {
	r := NewRegistry([]Model{
		{Provider: "a", ID: "a1", BaseURL: "http://a"},
		{Provider: "b", ID: "b1", BaseURL: "http://b"},
		{Provider: "a", ID: "a2", BaseURL: "http://a"},
		{Provider: "c", ID: "c1", BaseURL: "http://c"},
	}, nil)
	before := ids(r.All())

	// Models replace every model of the provider, in its place.
	r.RegisterProvider(RegisteredProvider{Name: "a", Models: []Model{{ID: "x1", BaseURL: "http://x"}}})
	if got, want := ids(r.All()), "a/x1@http://x b/b1@http://b c/c1@http://c"; got != want {
		t.Fatalf("replaced:\n got %s\nwant %s", got, want)
	}
	// A base URL alone re-routes.
	r.RegisterProvider(RegisteredProvider{Name: "b", BaseURL: "http://proxy"})
	// A provider new to the list comes last; an empty list removes a provider's models.
	r.RegisterProvider(RegisteredProvider{Name: "new", Models: []Model{{ID: "n1"}, {ID: "n2"}}})
	r.RegisterProvider(RegisteredProvider{Name: "c", Models: []Model{}})
	if got, want := ids(r.All()), "a/x1@http://x b/b1@http://proxy new/n1@ new/n2@"; got != want {
		t.Fatalf("after four:\n got %s\nwant %s", got, want)
	}
	if m := r.Find("new", "n2"); m == nil || m.Provider != "new" {
		t.Fatalf("find new/n2: %v", m)
	}
	if !r.IsRegistered("b") || r.IsRegistered("zzz") {
		t.Fatal("IsRegistered")
	}
	// Re-registering replaces the earlier registration.
	r.RegisterProvider(RegisteredProvider{Name: "new", Models: []Model{{ID: "n3"}}})
	if got := ids(r.All()); !strings.HasSuffix(got, "new/n3@") || strings.Contains(got, "n1") {
		t.Fatalf("re-registered: %s", got)
	}
	// Unregistering restores what was there.
	for _, name := range []string{"a", "b", "new", "c"} {
		if !r.UnregisterProvider(name) {
			t.Fatalf("unregister %s", name)
		}
	}
	if r.UnregisterProvider("a") {
		t.Fatal("unregistered twice")
	}
	if got := ids(r.All()); got != before {
		t.Fatalf("restored:\n got %s\nwant %s", got, before)
	}
}

// Readers see one consistent list while an extension changes it (run with -race).
func TestRegistryReadersDuringRegistrations(t *testing.T) {
	r := NewRegistry([]Model{{Provider: "a", ID: "a1"}}, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				all := r.All()
				// A registration is whole or absent: x's two models come together.
				n := 0
				for _, m := range all {
					if m.Provider == "x" {
						n++
					}
				}
				if n != 0 && n != 2 {
					t.Errorf("half a registration: %s", ids(all))
					return
				}
				_ = r.Available(func(string) bool { return true })
				_, _ = r.ResolveCLIModel("", "x/x1")
			}
		}()
	}
	for i := range 500 {
		r.RegisterProvider(RegisteredProvider{Name: "x", Models: []Model{{ID: "x1"}, {ID: fmt.Sprint("x", i+2)}}})
		r.UnregisterProvider("x")
	}
	close(stop)
	wg.Wait()
}
