package render

import "testing"

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	c := newLRU[string, int](2)
	c.put("a", 1)
	c.put("b", 2)
	if v, ok := c.get("a"); !ok || v != 1 {
		t.Fatal("a missing")
	}
	c.put("c", 3) // evicts b, the least recently used
	if _, ok := c.get("b"); ok {
		t.Fatal("b not evicted")
	}
	c.put("a", 10)
	if v, _ := c.get("a"); v != 10 || c.len() != 2 {
		t.Fatalf("a = %d, len = %d", v, c.len())
	}
}
