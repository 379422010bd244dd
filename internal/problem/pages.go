package problem

import (
	"html/template"
	"net/http"
)

var pageTmpl = template.Must(template.New("errors").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .One}}{{.One.Name}} · {{end}}Errata error codes</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}code{background:#eee;padding:0 .2em}
@media (prefers-color-scheme: dark){body{background:#111;color:#ddd}code{background:#333}a{color:#8cf}}</style></head><body>
{{with .One}}<p><a href="./">All error codes</a></p>
<h1><code>{{.Name}}</code></h1>
<p><strong>HTTP {{.Status}}</strong> · {{.Title}}</p>
<h2>What it means</h2><p>{{.Explain}}</p>
<h2>What to do</h2><p>{{.Fix}}</p>
<p>Errors are RFC 9457 problem objects (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>,
<code>status</code>, <code>detail</code> and <code>instance</code> (the request id, also sent as the <code>Request-Id</code> header).
Switch on <code>type</code>, never on <code>title</code> or <code>detail</code>.</p>
{{else}}<h1>Errata error codes</h1>
<p>Every error answer is an RFC 9457 problem whose <code>type</code> is the address of one of these pages.</p>
<table><thead><tr><th>Code</th><th>Status</th><th>Meaning</th></tr></thead><tbody>
{{range .All}}<tr><td><a href="{{.Name}}"><code>{{.Name}}</code></a></td><td>{{.Status}}</td><td>{{.Title}}</td></tr>
{{end}}</tbody></table>{{end}}
</body></html>
`))

// Pages serves the documentation of every code: GET <prefix>/errors/ lists
// them and GET <prefix>/errors/{code} explains one. notFound answers unknown
// codes.
func Pages(notFound http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /errors/{$}", func(w http.ResponseWriter, r *http.Request) {
		render(w, map[string]any{"All": All()})
	})
	mux.HandleFunc("GET /errors", func(w http.ResponseWriter, r *http.Request) {
		// Relative, so that it holds under whatever prefix was stripped
		// (/docs/errors → /docs/errors/); http.Redirect would resolve it
		// against the stripped path.
		w.Header().Set("Location", "errors/")
		w.WriteHeader(http.StatusMovedPermanently)
	})
	mux.HandleFunc("GET /errors/{code}", func(w http.ResponseWriter, r *http.Request) {
		c, ok := Lookup(r.PathValue("code"))
		if !ok {
			notFound.ServeHTTP(w, r)
			return
		}
		render(w, map[string]any{"One": c})
	})
	mux.Handle("/", notFound)
	return mux
}

// pageCSP allows the pages' own inline style and nothing else: no script,
// no framing, no forms.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func render(w http.ResponseWriter, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	_ = pageTmpl.Execute(w, data)
}
