// Package toolargs validates and coerces the arguments of tool calls against the tools' JSON schemas,
// for built-in, extension and MCP tools alike: Compile a schema once (or let a Cache do it), then
// Validate each call's raw arguments, which returns the arguments the tool receives or an error whose
// text is pi's. It knows JSON and JSON Schema only: no loop, no provider, no concrete tool.
//
// It behaves as pi 0.73.1 does with TypeBox and AJV's wording: arguments are first coerced as AJV's
// coerceTypes does ("5" becomes 5 where a number is expected), then validated; problems read
// "edits.0.newText: must have required properties newText", in the order TypeBox finds them; arguments
// that coercion changed are written back as JSON.stringify would, in the model's key order.
//
// Why a validator of our own rather than github.com/santhosh-tekuri/jsonschema/v6, which pi-go used
// first: that library compiles its metaschemas in package init (1.7 MB in 21,000 allocations; 5 ms of
// the 7.5 ms that all package inits cost `pi --version` when it was replaced, GODEBUG=inittrace=1),
// and it neither coerces nor words its errors as pi does, so a layer of ours would sit on it anyway.
package toolargs
