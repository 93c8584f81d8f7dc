// Regenerates jsonparse_errors.json: what JSON.parse says about each input, decoded from bytes as
// pi's RPC reader decodes stdin (StringDecoder, UTF-8). Run with Node 20: node jsonparse_errors.gen.js
const { StringDecoder } = require("node:string_decoder");
const fs = require("node:fs");
const path = require("node:path");

const fixed = [
  "", " ", "\r", "hello", "{", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,", "{a:1}", "[1,", "[1 2]",
  "{\"a\" 1}", "{\"a\":1}x", "{\"a\":1} {\"b\":2}", "\"abc", "\"a\nb\"", "\"\\x\"", "-", "1.", "1e", "01",
  "-01", "tru", "nul", "tr1", "tr\"", "tr ue", "{\"type\":\"prompt\",\"message\":\"hi\"", "\u0000\u0001garbage",
  "[", "]", "{}}", "{\"a\":1,}", "[1,]", "\"\\u12\"", "\"\\u1", "\"\\", "NaN", "Infinity", "undefined",
  "[object Object]", "{\"a\":tru}", "x".repeat(40), "{\"k\":\"" + "x".repeat(40) + "\"", ",", "{,}",
  "{\"a\"::1}", "  {\"a\":1", "\"\t\"", "[\"😀\", x]", "😀", "{\"😀\":1 2}", "\ufeff{}", "{\"a\":1e+}",
  "{\"a\":-x}", "{\"a\":.5}", "{\"a\":1.e5}", "123abc", "{\"a\":\"\\u00g0\"}", "t", "f", "true false",
  "{\"a\":fals}", "{\"a\":nulx}", "\u2028{}", "\u00a0{}", "{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": x }",
  "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":x}", "\"abc\" 1", "[1] \"x\"", "\"\\é\"", "\"\\€\"", "\"\\😀\"",
  "{\"type\":\"prompt\",\"message\":\"😀😀😀😀😀😀😀😀😀😀😀\" x}", "😀😀😀😀😀😀😀😀😀😀😀😀😀 x",
  "{\"type\":\"get_state\"}", "{\"id\":\"1\",\"type\":\"prompt\",\"message\":\"a\u2028b\u2029c\"}",
  "[[[[[[[[[[]]]]]]]]]]", "{\"a\":[1,{\"b\":[true,false,null]}],\"c\":{}}", "-0", "0.5e-7", "1E+2",
  "{\"a\":1 ", "[1,2", "{\"a\":{\"b\":{}}", "{\"a\" : \"b\" , }", "[-]", "[0x1]", "[1e5.0]", "{\"\\ud800\":1}",
];
const bytes = fixed.map((s) => Buffer.from(s, "utf8"));
// Raw byte inputs that are not valid UTF-8.
for (const hex of ["ff", "fffe7b7d", "7b2261223a22e2822241227d", "c3", "e282", "f09f98", "ed a0 80", "c0af",
  "f4908080", "7b22e0a07f223a317d", "80818283", "7b226964223a2231222c2274797065223a22ff227d"]) {
  bytes.push(Buffer.from(hex.replace(/ /g, ""), "hex"));
}
// Deterministic mutations of valid commands.
let seed = 42;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const bases = [
  "{\"id\":\"req-1\",\"type\":\"prompt\",\"message\":\"Fix the failing test in src/app.ts\",\"images\":[{\"type\":\"image\",\"data\":\"aGk=\",\"mimeType\":\"image/png\"}]}",
  "{\"type\":\"set_model\",\"provider\":\"openai\",\"modelId\":\"gpt-4o-mini\",\"n\":-12.5e3,\"ok\":true,\"z\":null}",
  "{\"id\":\"ü\",\"type\":\"steer\",\"message\":\"über 😀 \\\"quoted\\\" \\n \\u00e9\"}",
];
const alphabet = "{}[]:,\"\\ -+.0123456789eEtrufalsn xü😀\u0000\t\n\r/\u2028";
for (let k = 0; k < 400; k++) {
  let s = bases[rand(bases.length)];
  const ops = 1 + rand(2);
  for (let o = 0; o < ops; o++) {
    const at = rand(s.length + 1);
    switch (rand(3)) {
      case 0: s = s.slice(0, at) + s.slice(at + 1); break;
      case 1: s = s.slice(0, at) + [...alphabet][rand([...alphabet].length)] + s.slice(at); break;
      default: s = s.slice(0, at);
    }
  }
  bytes.push(Buffer.from(s, "utf8"));
}
const out = bytes.map((b) => {
  const text = new StringDecoder("utf8").end(b);
  let error = null;
  try { JSON.parse(text); } catch (e) { error = JSON.stringify(e.message); }
  return { src: b.toString("base64"), error };
});
fs.writeFileSync(path.join(__dirname, "jsonparse_errors.json"), JSON.stringify(out, null, 1) + "\n");
console.log(`${out.length} cases, ${out.filter((c) => c.error).length} errors`);
