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
		// Names, not hashes.
		{"page-download.js", "page-download.js"},
		{"cart-Checkout.js", "cart-Checkout.js"},
		{"ui-MyWidget.js", "ui-MyWidget.js"},
		{"ui-userList.js", "ui-userList.js"},
		{"lib-ReactDOM.js", "lib-ReactDOM.js"},
		{"jquery.tableDnD.js", "jquery.tableDnD.js"},
		{"locale-yue-Hant.js", "locale-yue-Hant.js"},
		{"did-you-mean.js", "did-you-mean.js"},
		{"with-temp-dir.js", "with-temp-dir.js"},
		{"source-map-tree.ts", "source-map-tree.ts"},
		{"link-icon-png.js", "link-icon-png.js"},
		{"component-annotation-vite-ast.js", "component-annotation-vite-ast.js"},
		{"type.c_double.js", "type.c_double.js"},
		{"app.e2e-spec.ts", "app.e2e-spec.ts"},
		{"api-v1alpha1.js", "api-v1alpha1.js"},
		{"vendor-3rdparty.js", "vendor-3rdparty.js"},
		{"error-page-404.js", "error-page-404.js"},
		{"migration-v2024-01.js", "migration-v2024-01.js"},
		{"hello-world-v2.js", "hello-world-v2.js"},
		{"provider-Web3Auth.js", "provider-Web3Auth.js"},
		{"utils-toBase64.js", "utils-toBase64.js"},
		{"app.toBase64.js", "app.toBase64.js"},
		{"three-Vector3D.js", "three-Vector3D.js"},
		{"codec-fromUtf8.js", "codec-fromUtf8.js"},
		{"device-iPhone12.js", "device-iPhone12.js"},
		{"player-mp4Video.js", "player-mp4Video.js"},
		{"log-20261201.js", "log-20261201.js"},               // a date: stripBuildHash's
		{"main.8f3a2b1c.chunk.js", "main.8f3a2b1c.chunk.js"}, // hex: stripBuildHash's
		{"app.js", "app.js"},
		{"D3QQW6G5.js", "D3QQW6G5.js"}, // the whole name: nothing left to name it
	} {
		if got := stripBundleHash(c.in); got != c.want {
			t.Errorf("stripBundleHash(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestBundleHashOnlyInJavaScript: Python's, PHP's and Ruby's files are not
// named by bundlers, and keep their names whole.
func TestBundleHashOnlyInJavaScript(t *testing.T) {
	t.Parallel()
	py := "Traceback (most recent call last):\n  File \"/app/tools/run-D3QQW6G5.py\", line 3, in <module>\n    main()\nValueError: x"
	st := parseStack(py, current)
	if len(st.Frames) == 0 || st.Frames[0].Module != "tools/run-D3QQW6G5.py" {
		t.Fatalf("frames = %+v, want the module tools/run-D3QQW6G5.py", st.Frames)
	}
}
