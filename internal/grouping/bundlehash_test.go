package grouping

import "testing"

func TestStripBundleHash(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"app.D3QQW6G5.js", "app.js"},     // esbuild [name].[hash]
		{"app-FTJ64PHM.js", "app.js"},     // esbuild [name]-[hash]
		{"app-FTJAPHMQ.js", "app.js"},     // esbuild, no digit
		{"index-BfQ2x3Ad.js", "index.js"}, // Vite
		{"index-B-x_3Ad1.js", "index.js"}, // Vite, a dash and an underscore in the hash
		{"index-BfQxAdzZ.js", "index.js"}, // Vite, no digit
		{"vendor-react-C7kLm9Zq.js", "vendor-react.js"},
		{"index.BfQ2x3Ad.js", "index.js"}, // SvelteKit
		{"page-download.js", "page-download.js"},
		{"cart-Checkout.js", "cart-Checkout.js"},
		{"ui-MyWidget.js", "ui-MyWidget.js"},
		{"ui-userList.js", "ui-userList.js"},
		{"log-20261201.js", "log-20261201.js"},      // a date: stripBuildHash's
		{"main.8f3a2b1c.chunk.js", "main.chunk.js"}, // hex too, as stripBuildHash would
		{"app.js", "app.js"},
		{"D3QQW6G5.js", "D3QQW6G5.js"}, // the whole name: nothing left to name it
	} {
		if got := stripBundleHash(c.in); got != c.want {
			t.Errorf("stripBundleHash(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
