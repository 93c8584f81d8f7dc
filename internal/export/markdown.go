package export

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// newMarkdown builds the markdown converter: GitHub-flavoured markdown (tables, strikethrough,
// task lists, autolinks) as pi's export renders it, with three changes for a page that must stay
// offline and inert: code blocks are highlighted here, raw HTML is shown as text rather than
// dropped or obeyed, and images are links (an <img> with a remote src would be a fetch).
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(
			html.WithHardWraps(),
			renderer.WithNodeRenderers(util.Prioritized(mdOverrides{}, 100)),
		),
	)
}

// mdOverrides renders the nodes newMarkdown treats its own way.
type mdOverrides struct{}

func (mdOverrides) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderCodeBlock)
	reg.Register(ast.KindCodeBlock, renderCodeBlock)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlockAsText)
	reg.Register(ast.KindRawHTML, renderRawHTMLAsText)
	reg.Register(ast.KindImage, renderImageAsLink)
}

func renderCodeBlock(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	lang := ""
	if f, ok := n.(*ast.FencedCodeBlock); ok {
		lang = string(f.Language(source))
	}
	code := nodeLines(n, source)
	w.WriteString(`<pre class="code"`)
	if lang != "" {
		w.WriteString(` data-lang="`)
		writeEscaped(w, lang)
		w.WriteString(`"`)
	}
	w.WriteString("><code>")
	writeCode(w, code.String(), lang)
	w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

// nodeLines is the source text of a block node's lines.
func nodeLines(n ast.Node, source []byte) *bytes.Buffer {
	var text bytes.Buffer
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		text.Write(seg.Value(source))
	}
	return &text
}

func renderHTMLBlockAsText(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	text := nodeLines(n, source)
	if b, ok := n.(*ast.HTMLBlock); ok && b.HasClosure() {
		text.Write(b.ClosureLine.Value(source))
	}
	w.WriteString(`<pre class="rawhtml">`)
	writeEscaped(w, text.String())
	w.WriteString("</pre>\n")
	return ast.WalkSkipChildren, nil
}

func renderRawHTMLAsText(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	segs := n.(*ast.RawHTML).Segments
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		writeEscaped(w, string(seg.Value(source)))
	}
	return ast.WalkSkipChildren, nil
}

func renderImageAsLink(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	img := n.(*ast.Image)
	w.WriteString(`<a class="mdimg" href="`)
	if html.IsDangerousURL(img.Destination) {
		w.WriteString("#")
	} else {
		writeEscaped(w, string(util.URLEscape(img.Destination, true)))
	}
	w.WriteString(`">[image: `)
	writeEscaped(w, string(img.Text(source))) //nolint:staticcheck // the alt text, as goldmark's own renderer reads it
	w.WriteString("]</a>")
	return ast.WalkSkipChildren, nil
}
