package provider

import "testing"

// BenchmarkStartupModelSelection is the model work on pi-go's startup path: build the catalogue and
// the registry, list the available models and resolve a --model pattern.
func BenchmarkStartupModelSelection(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		reg := NewRegistry(BuiltinModels(), nil)
		avail := reg.Available(func(p string) bool { return p == "openai" || p == "openrouter" })
		if DefaultAvailableModel(avail) == nil {
			b.Fatal("no default")
		}
		if _, err := reg.ResolveCLIModel("", "sonnet:high"); err != nil {
			b.Fatal(err)
		}
	}
}
