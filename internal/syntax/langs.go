package syntax

import (
	"strings"
	"sync"
)

var (
	cComments    = []string{"//"}
	cBlocks      = [][2]string{{"/*", "*/"}}
	dquote       = strDef{open: `"`, close: `"`, escape: true}
	squote       = strDef{open: "'", close: "'", escape: true}
	charLiteral  = strDef{open: "'", close: "'", escape: true, short: true}
	tripleDouble = strDef{open: `"""`, close: `"""`, escape: true, multiline: true}
)

const (
	cKeywords = "auto break case const continue default do else enum extern for goto if inline register " +
		"restrict return sizeof static struct switch typedef union volatile while"
	cTypes = "char double float int long short signed unsigned void bool size_t ssize_t ptrdiff_t " +
		"int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t wchar_t FILE"
	cppKeywords = "alignas alignof and asm catch class concept consteval constexpr constinit const_cast co_await " +
		"co_return co_yield decltype delete dynamic_cast explicit export final friend mutable namespace new noexcept " +
		"not operator or override private protected public reinterpret_cast requires static_assert static_cast " +
		"template this thread_local throw try typeid typename using virtual"
	jsKeywords = "async await break case catch class const continue debugger default delete do else export " +
		"extends finally for from function get if import in instanceof let new of return set static super switch " +
		"this throw try typeof var void while with yield as"
	jsLiterals = "true false null undefined NaN Infinity"
	jsBuiltins = "console window document globalThis process require module exports Math JSON Object Array " +
		"String Number Boolean Symbol BigInt Promise Map Set WeakMap WeakSet Date RegExp Error TypeError " +
		"RangeError parseInt parseFloat setTimeout setInterval clearTimeout clearInterval fetch"
	tsKeywords = jsKeywords + " abstract declare enum implements infer interface is keyof module namespace " +
		"override private protected public readonly satisfies type unique"
	tsTypes = "string number boolean any unknown never object symbol bigint void Record Partial Readonly " +
		"Pick Omit Array Promise"
)

// langDefs are the languages the generic lexer reads.
func langDefs() map[string]langDef {
	return map[string]langDef{
		"go": {
			lineComments: cComments, blockComments: cBlocks,
			strings: []strDef{dquote, {open: "`", close: "`", multiline: true}, charLiteral},
			keywords: "break case chan const continue default defer else fallthrough for func go goto if " +
				"import interface map package range return select struct switch type var",
			types: "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune " +
				"string uint uint8 uint16 uint32 uint64 uintptr any comparable",
			literals: "true false nil iota",
			builtins: "append cap clear close complex copy delete imag len make max min new panic print " +
				"println real recover",
			funcDecl: "func", typeDecl: "type",
		},
		"javascript": {
			lineComments: cComments, blockComments: cBlocks,
			strings:  []strDef{dquote, squote, {open: "`", close: "`", escape: true, multiline: true}},
			keywords: jsKeywords, literals: jsLiterals, builtins: jsBuiltins, identExtra: "$",
			funcDecl: "function", typeDecl: "class extends new",
		},
		"typescript": {
			lineComments: cComments, blockComments: cBlocks,
			strings:  []strDef{dquote, squote, {open: "`", close: "`", escape: true, multiline: true}},
			keywords: tsKeywords, literals: jsLiterals, builtins: jsBuiltins, types: tsTypes, identExtra: "$",
			atMeta: true, capsTypes: true,
			funcDecl: "function", typeDecl: "class extends implements interface type enum new",
		},
		"python": {
			lineComments: []string{"#"},
			strings: []strDef{tripleDouble, {open: "'''", close: "'''", escape: true, multiline: true},
				dquote, squote},
			strPrefixes: "r R b B f F u U rb rB Rb RB br bR Br BR fr fR Fr FR rf rF Rf RF",
			keywords: "and as assert async await break class continue def del elif else except finally for " +
				"from global if import in is lambda match case nonlocal not or pass raise return try while " +
				"with yield",
			literals: "True False None Ellipsis NotImplemented",
			builtins: "self cls print len range str int float complex list dict set frozenset tuple bool " +
				"bytes bytearray type isinstance issubclass open super object enumerate zip map filter " +
				"sorted reversed min max sum abs round any all iter next repr hash id input format getattr " +
				"setattr hasattr delattr callable vars dir divmod pow ord chr hex oct bin Exception " +
				"ValueError TypeError KeyError IndexError AttributeError RuntimeError StopIteration " +
				"NotImplementedError OSError IOError FileNotFoundError ImportError",
			atMeta: true, funcDecl: "def", typeDecl: "class",
		},
		"rust": {
			lineComments: cComments, blockComments: cBlocks,
			strings: []strDef{{open: `r#"`, close: `"#`, multiline: true}, {open: `r"`, close: `"`, multiline: true},
				{open: `b"`, close: `"`, escape: true, multiline: true}, {open: `"`, close: `"`, escape: true, multiline: true},
				{open: "b'", close: "'", escape: true, short: true}, charLiteral},
			metaSpans: [][2]string{{"#![", "]"}, {"#[", "]"}},
			keywords: "as async await break const continue crate dyn else enum extern fn for if impl in let " +
				"loop match mod move mut pub ref return self Self static struct super trait type unsafe use " +
				"where while",
			types: "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str String Vec " +
				"Option Result Box Rc Arc RefCell Cell HashMap HashSet BTreeMap BTreeSet",
			literals:  "true false None Some Ok Err",
			macroBang: true, capsTypes: true, funcDecl: "fn", typeDecl: "struct enum trait type union",
		},
		"c": {
			lineComments: cComments, blockComments: cBlocks, strings: []strDef{dquote, charLiteral},
			keywords: cKeywords, types: cTypes, literals: "true false NULL", hashMeta: true,
			typeDecl: "struct enum union",
		},
		"cpp": {
			lineComments: cComments, blockComments: cBlocks, strings: []strDef{dquote, charLiteral},
			strPrefixes: "L u U u8 R",
			keywords:    cKeywords + " " + cppKeywords,
			types:       cTypes + " string vector map unordered_map set unique_ptr shared_ptr optional",
			literals:    "true false NULL nullptr", hashMeta: true,
			typeDecl: "struct enum union class namespace typename",
		},
		"java": {
			lineComments: cComments, blockComments: cBlocks, strings: []strDef{tripleDouble, dquote, charLiteral},
			keywords: "abstract assert break case catch class continue default do else enum extends final " +
				"finally for if implements import instanceof interface native new package permits private " +
				"protected public record return sealed static strictfp super switch synchronized this throw " +
				"throws transient try var volatile while yield",
			types:    "boolean byte char double float int long short void",
			literals: "true false null", atMeta: true, capsTypes: true,
			typeDecl: "class interface enum record extends implements new",
		},
		"csharp": {
			lineComments: cComments, blockComments: cBlocks,
			strings: []strDef{{open: `@"`, close: `"`, multiline: true}, {open: `$"`, close: `"`, escape: true},
				dquote, charLiteral},
			keywords: "abstract as async await base break case catch checked class const continue default " +
				"delegate do else enum event explicit extern finally fixed for foreach get goto if implicit " +
				"in interface internal is lock namespace new operator out override params partial private " +
				"protected public readonly record ref return sealed set sizeof stackalloc static struct " +
				"switch this throw try typeof unchecked unsafe using var virtual volatile when where while " +
				"yield",
			types: "bool byte char decimal double float int long object sbyte short string uint ulong " +
				"ushort void dynamic",
			literals: "true false null", hashMeta: true, capsTypes: true,
			typeDecl: "class interface enum struct record new",
		},
		"kotlin": {
			lineComments: cComments, blockComments: cBlocks, strings: []strDef{tripleDouble, dquote, charLiteral},
			keywords: "as break by catch class companion const constructor continue data do else enum " +
				"finally for fun if import in init interface internal is lateinit object open operator " +
				"out override package private protected public return sealed suspend this throw try typealias " +
				"val var vararg when where while",
			types:    "Int Long Short Byte Double Float Boolean Char String Unit Any Nothing List Map Set",
			literals: "true false null", atMeta: true, capsTypes: true,
			funcDecl: "fun", typeDecl: "class interface object typealias",
		},
		"swift": {
			lineComments: cComments, blockComments: cBlocks, strings: []strDef{tripleDouble, dquote},
			keywords: "actor as associatedtype async await break case catch class continue default defer " +
				"deinit do else enum extension fallthrough fileprivate for func guard if import in init inout " +
				"internal is let mutating open operator private protocol public repeat rethrows return self " +
				"Self static struct subscript super switch throw throws try typealias var where while",
			types:    "Int Double Float Bool String Character Array Dictionary Set Optional Void Any",
			literals: "true false nil", atMeta: true, capsTypes: true,
			funcDecl: "func", typeDecl: "class struct enum protocol extension actor typealias",
		},
		"scala": {
			lineComments: cComments, blockComments: cBlocks, strings: []strDef{tripleDouble, dquote, charLiteral},
			keywords: "abstract case catch class def do else enum extends final finally for given if implicit " +
				"import lazy match new object override package private protected return sealed super then this " +
				"throw trait try type using val var while with yield",
			literals: "true false null", atMeta: true, capsTypes: true,
			funcDecl: "def", typeDecl: "class object trait type enum extends new",
		},
		"dart": {
			lineComments: cComments, blockComments: cBlocks,
			strings: []strDef{{open: `'''`, close: `'''`, escape: true, multiline: true}, tripleDouble, dquote, squote},
			keywords: "abstract as assert async await break case catch class const continue covariant default " +
				"deferred do dynamic else enum export extends extension external factory final finally for get " +
				"if implements import in interface is late library mixin new on operator part required " +
				"rethrow return set show static super switch sync this throw try typedef var void while with yield",
			types:    "int double num bool String List Map Set Future Stream Object dynamic",
			literals: "true false null", atMeta: true, capsTypes: true,
			typeDecl: "class enum mixin extension extends implements with new",
		},
		"php": {
			lineComments: []string{"//", "#"}, blockComments: cBlocks, strings: []strDef{dquote, squote},
			metaSpans: [][2]string{{"<?php", "php"}, {"?>", ">"}},
			keywords: "abstract and array as break callable case catch class clone const continue declare " +
				"default do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile enum " +
				"extends final finally fn for foreach function global goto if implements include include_once " +
				"instanceof insteadof interface isset list match namespace new or print private protected " +
				"public readonly require require_once return static switch throw trait try unset use var while " +
				"xor yield",
			literals: "true false null TRUE FALSE NULL", varSigils: "$",
			funcDecl: "function", typeDecl: "class interface trait enum extends implements new",
		},
		"ruby": {
			lineComments: []string{"#"}, blockComments: [][2]string{{"=begin", "=end"}},
			strings:  []strDef{dquote, squote},
			keywords: "alias and begin break case class def defined? do else elsif end ensure for if in module next not or redo rescue retry return self super then undef unless until when while yield require require_relative attr_accessor attr_reader attr_writer include extend private protected public raise",
			literals: "true false nil", varSigils: "@$", identExtra: "?!", capsTypes: true,
			funcDecl: "def", typeDecl: "class module",
		},
		"lua": {
			lineComments: []string{"--"}, blockComments: [][2]string{{"--[[", "]]"}},
			strings: []strDef{{open: "[[", close: "]]", multiline: true}, dquote, squote},
			keywords: "and break do else elseif end for function goto if in local not or repeat return then " +
				"until while",
			literals: "true false nil",
			builtins: "print pairs ipairs type tostring tonumber require error assert pcall setmetatable " +
				"getmetatable select table string math os io",
			funcDecl: "function",
		},
		"bash": {
			hashComments: true,
			strings: []strDef{{open: `"`, close: `"`, escape: true, multiline: true},
				{open: "'", close: "'", multiline: true}},
			keywords: "if then else elif fi for while until do done case esac in function select time " +
				"return break continue local export readonly declare typeset unset shift source",
			builtins: "echo printf cd pwd exit test read eval exec set trap wait kill alias type command " +
				"builtin true false",
			varSigils: "$", identExtra: "-", funcDecl: "function",
		},
		"sql": {
			lineComments: []string{"--"}, blockComments: cBlocks,
			strings: []strDef{{open: "'", close: "'", multiline: true}, {open: `"`, close: `"`}},
			keywords: "add all alter and any as asc begin between by case cascade check column commit " +
				"constraint create cross database default delete desc distinct drop else end exists explain " +
				"foreign from full group having if in index inner insert intersect into is join key left like " +
				"limit natural not null offset on or order outer primary references rename replace returning " +
				"right rollback select set table then to transaction truncate union unique update using values " +
				"view when where with",
			types: "int integer bigint smallint tinyint serial bigserial decimal numeric real float double " +
				"precision varchar char character text boolean bool date time timestamp timestamptz interval " +
				"blob bytea json jsonb uuid",
			literals: "true false", builtins: "count sum avg min max coalesce now cast lower upper length",
			caseFold: true,
		},
		"dockerfile": {
			hashComments: true, strings: []strDef{dquote, squote},
			keywords: "from run cmd label maintainer expose env add copy entrypoint volume user workdir arg " +
				"onbuild stopsignal healthcheck shell as",
			caseFold: true, varSigils: "$",
		},
	}
}

// jsonDef reads JSON (and JSON with comments): keys in the attribute colour, values by kind.
var jsonDef = langDef{
	lineComments: cComments, blockComments: cBlocks, strings: []strDef{dquote},
	literals: "true false null", keyStrings: true,
}

// langAliases maps the names a code fence may use to language names.
var langAliases = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for name, aliases := range map[string]string{
		"go":         "go golang",
		"javascript": "javascript js jsx mjs cjs node",
		"typescript": "typescript ts tsx mts cts",
		"python":     "python py python3 py3 gyp",
		"rust":       "rust rs",
		"c":          "c h",
		"cpp":        "cpp c++ cc cxx hpp hh hxx h++ ino",
		"java":       "java",
		"csharp":     "csharp cs c#",
		"kotlin":     "kotlin kt kts",
		"swift":      "swift",
		"scala":      "scala sc",
		"dart":       "dart",
		"php":        "php",
		"ruby":       "ruby rb gemspec podspec rake",
		"lua":        "lua",
		"bash":       "bash sh shell zsh ksh console shellsession",
		"sql":        "sql mysql postgresql postgres psql pgsql sqlite plsql",
		"dockerfile": "dockerfile docker containerfile",
		"json":       "json jsonc json5",
		"yaml":       "yaml yml",
		"toml":       "toml",
		"ini":        "ini cfg conf properties editorconfig",
		"html":       "html htm xhtml vue svelte",
		"xml":        "xml svg xsd xsl xslt plist rss atom csproj",
		"css":        "css scss less",
		"diff":       "diff patch udiff",
		"markdown":   "markdown md mdx",
		"makefile":   "makefile make mk mak",
	} {
		for _, a := range strings.Fields(aliases) {
			m[a] = name
		}
	}
	return m
})

// pathLanguages maps file extensions (lower case) to languages, as pi's getLanguageFromPath does;
// a name without an extension counts as its own extension (Makefile, Dockerfile).
var pathLanguages = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for name, exts := range map[string]string{
		"typescript": "ts tsx mts cts", "javascript": "js jsx mjs cjs", "python": "py pyi", "ruby": "rb",
		"rust": "rs", "go": "go", "java": "java", "kotlin": "kt kts", "swift": "swift", "dart": "dart",
		"c": "c h", "cpp": "cpp cc cxx hpp hh hxx", "csharp": "cs", "php": "php", "bash": "sh bash zsh",
		"sql": "sql", "html": "html htm", "css": "css scss less", "json": "json jsonc", "yaml": "yaml yml",
		"toml": "toml", "ini": "ini cfg", "xml": "xml svg", "markdown": "md markdown",
		"dockerfile": "dockerfile", "makefile": "makefile mk", "lua": "lua", "scala": "scala",
		"diff": "diff patch",
	} {
		for _, e := range strings.Fields(exts) {
			m[e] = name
		}
	}
	return m
})
