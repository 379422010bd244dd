// Package docs holds the project's documentation, the Markdown files of this
// directory, embedded so that the server serves them rendered under /docs/
// (internal/docsite) and the dashboard can link to them.
package docs

import "embed"

// Files are the documents, docs/*.md.
//
//go:embed *.md
var Files embed.FS
