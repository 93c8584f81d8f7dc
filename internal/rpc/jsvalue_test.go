package rpc

import "testing"

// Expected values were printed by Node 20: String(JSON.parse(src)) and JSON.stringify(JSON.parse(src)).
func TestJSValueMatchesJavaScript(t *testing.T) {
	cases := []struct{ src, str, stringify string }{
		{"0", "0", "0"},
		{"-0", "0", "0"},
		{"1.5", "1.5", "1.5"},
		{"100", "100", "100"},
		{"1e21", "1e+21", "1e+21"},
		{"1e20", "100000000000000000000", "100000000000000000000"},
		{"123456789012345680000", "123456789012345680000", "123456789012345680000"},
		{"0.000001", "0.000001", "0.000001"},
		{"1e-7", "1e-7", "1e-7"},
		{"1.5e-7", "1.5e-7", "1.5e-7"},
		{"-2.5e-10", "-2.5e-10", "-2.5e-10"},
		{"5e-324", "5e-324", "5e-324"},
		{"1.7976931348623157e308", "1.7976931348623157e+308", "1.7976931348623157e+308"},
		{"0.30000000000000004", "0.30000000000000004", "0.30000000000000004"},
		{"12e-1", "1.2", "1.2"},
		{"1e400", "Infinity", "null"},
		{"-1e400", "-Infinity", "null"},
		{`{"b":1,"a":2,"10":3,"2":4,"b":5,"01":6,"4294967295":7,"4294967294":8}`, "[object Object]",
			`{"2":4,"10":3,"4294967294":8,"b":5,"a":2,"01":6,"4294967295":7}`},
		{`[1,null,[2,[3,null]],{"x":1},"s",true]`, "1,,2,3,,[object Object],s,true", `[1,null,[2,[3,null]],{"x":1},"s",true]`},
		{`"\u2028\u00e9\/"`, "\u2028é/", "\"\u2028é/\""},
		{"null", "null", "null"},
		{"true", "true", "true"},
	}
	for _, c := range cases {
		v, err := parseJSValue([]byte(c.src))
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := v.String(); got != c.str {
			t.Errorf("String(%s) = %q, want %q", c.src, got, c.str)
		}
		if got := string(v.appendStringify(nil)); got != c.stringify {
			t.Errorf("JSON.stringify(%s) = %s, want %s", c.src, got, c.stringify)
		}
	}
}

func TestAppendJSONUTF16(t *testing.T) {
	units := []uint16{'a', '"', '\\', '\n', 0x01, 0xD83D, 0xDE00, 0xD83D, 'b', 0xDE00, 0x2028, 0xE9}
	want := "\"a\\\"\\\\\\n\\u0001😀\\ud83db\\ude00\u2028é\""
	if got := string(appendJSONUTF16(nil, units)); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
