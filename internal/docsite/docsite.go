// Package docsite serves the documentation under /docs/ (issue 29): the
// Markdown files of docs/ rendered to HTML, an index of them, and an API
// reference rendered from the served OpenAPI document; the error code pages
// (problem.Pages) stay under /docs/errors/. Everything is embedded in the
// binary and rendered on the server: no script, no external stylesheet or CDN.
//
// Markdown is rendered with goldmark (GitHub Flavored Markdown, heading ids
// as GitHub makes them) in its safe mode: raw HTML in a document is dropped
// and links with dangerous schemes (javascript:, …) are not links, so a page
// holds nothing but the document's text. Documents link to each other by
// file name (operations.md#backups), which is also their address here.
package docsite

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

//go:embed templates
var templateFS embed.FS

var tmpl = template.Must(template.ParseFS(templateFS, "templates/*.html"))

// ContentSecurityPolicy of every page: its own inline stylesheet and
// nothing else; no script runs.
const ContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options are what the site serves.
type Options struct {
	// Docs are the Markdown documents (docs.Files): every *.md at its root.
	Docs fs.FS
	// OpenAPI returns the served OpenAPI document (JSON) the reference is
	// rendered from, at the first request for it.
	OpenAPI func() ([]byte, error)
	// Errors serves /errors/… (problem.Pages); NotFound every other
	// unknown path.
	Errors, NotFound http.Handler
}

// Doc is one rendered document.
type Doc struct {
	Name  string // file name, e.g. "sentry.md": its address under /docs/
	Title string // its first heading
	Body  template.HTML
}

type site struct {
	docs    map[string]*Doc
	list    []*Doc
	openapi func() ([]byte, error)

	apiOnce sync.Once
	apiPage []byte
	apiErr  error
}

// Handler serves the site; mount it with http.StripPrefix("/docs", …).
// It fails when a document does not render.
func Handler(o Options) (http.Handler, error) {
	s := &site{docs: map[string]*Doc{}, openapi: o.OpenAPI}
	names, err := fs.Glob(o.Docs, "*.md")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		src, err := fs.ReadFile(o.Docs, name)
		if err != nil {
			return nil, err
		}
		d, err := renderDoc(name, src)
		if err != nil {
			return nil, fmt.Errorf("docsite: %s: %w", name, err)
		}
		s.docs[name] = d
		s.list = append(s.list, d)
	}
	sort.Slice(s.list, func(i, j int) bool { return s.list[i].Name < s.list[j].Name })

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		page(w, r, "index.html", map[string]any{"Title": "Documentation", "Docs": s.list})
	})
	mux.HandleFunc("GET /api", s.apiReference)
	mux.HandleFunc("GET /{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		d, ok := s.docs[name]
		if !ok {
			if d, ok = s.docs[name+".md"]; ok { // /docs/sentry → /docs/sentry.md
				// Relative, so that it stays under the prefix the site is
				// mounted at (http.Redirect would root it at /).
				w.Header().Set("Location", d.Name)
				w.WriteHeader(http.StatusMovedPermanently)
				return
			}
			o.NotFound.ServeHTTP(w, r)
			return
		}
		page(w, r, "doc.html", d)
	})
	mux.Handle("GET /errors", o.Errors)
	mux.Handle("GET /errors/", o.Errors)
	mux.Handle("/", o.NotFound)
	return mux, nil
}

// markdown is the renderer: GFM (tables, strikethrough, autolinks, task
// lists), GitHub's heading ids, no raw HTML (goldmark's default).
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// renderDoc renders one document; its title is its first level-1 heading.
func renderDoc(name string, src []byte) (*Doc, error) {
	var buf bytes.Buffer
	if err := markdown.Convert(src, &buf); err != nil {
		return nil, err
	}
	title := strings.TrimSuffix(path.Base(name), ".md")
	for _, line := range strings.Split(string(src), "\n") {
		if t, ok := strings.CutPrefix(line, "# "); ok {
			title = strings.TrimSpace(t)
			break
		}
	}
	// The HTML is goldmark's safe rendering of the document: escaped text,
	// raw HTML dropped, dangerous link schemes removed.
	return &Doc{Name: name, Title: title, Body: template.HTML(buf.String())}, nil
}

// textHTML renders a plain text (an OpenAPI description, written as text
// with placeholders like <key_id>): escaped, a paragraph per blank line.
func textHTML(src string) template.HTML {
	var b strings.Builder
	for _, para := range strings.Split(strings.TrimSpace(src), "\n\n") {
		if para = strings.TrimSpace(para); para != "" {
			b.WriteString("<p>" + template.HTMLEscapeString(para) + "</p>\n")
		}
	}
	return template.HTML(b.String()) // escaped above
}

// page writes template name with data, with the site's headers.
func page(w http.ResponseWriter, r *http.Request, name string, data any) {
	var buf bytes.Buffer
	if err := tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "docs: "+err.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, r, buf.Bytes())
}

func writePage(w http.ResponseWriter, r *http.Request, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "public, max-age=300")
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}
