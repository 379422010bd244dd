package symbolicate

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// tilde is a file's URL in sentry-cli's form: "~/static/main.js" for
// "https://example.com/static/main.js", for "app:///static/main.js"
// (React Native, Electron and Node's RewriteFrames), and for a Node file's
// absolute path, "/srv/app/dist/main.js" or "file:///srv/app/dist/main.js"
// ("~/srv/app/dist/main.js": sentry-cli's --url-prefix '~/srv/app/dist'),
// as Sentry reads any URL's path; other files (relative, Windows paths) as
// they are.
func tilde(file string) string {
	// A path is taken as written (sentry-cli uploads names as they are:
	// spaces, '#', non-ASCII), not as a URL would escape or cut it.
	if p, ok := strings.CutPrefix(file, "file://"); ok && strings.HasPrefix(p, "/") {
		return "~" + p
	}
	if strings.HasPrefix(file, "/") && !strings.HasPrefix(file, "//") {
		return "~" + file
	}
	u, err := url.Parse(file)
	if err != nil || !strings.HasPrefix(u.EscapedPath(), "/") {
		return file
	}
	web := (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
	if !web && !(u.Scheme == "app" && strings.HasPrefix(file, "app://")) {
		return file
	}
	return "~" + u.EscapedPath()
}

// candidates are the names a file may have been uploaded under: its URL
// as is and in the "~/path" form.
func candidates(file string) []string {
	if t := tilde(file); t != file {
		return []string{t, file}
	}
	return []string{file}
}

// mapNames are the names the map that ref names may have been uploaded
// under: ref resolved against the name the file was found under, in both
// forms, and, when that was the "~/path" form of the frame's full URL
// (file), ref resolved against that URL: "../maps/x.map" of a file
// uploaded as "~/static/x.js" and seen at https://shop.example.com/static/x.js
// finds a map uploaded as https://shop.example.com/maps/x.map too.
func mapNames(name, file, ref string) []string {
	out := candidates(joinURL(name, ref))
	if name != file {
		for _, n := range candidates(joinURL(file, ref)) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// joinURL resolves a sourcemap reference against the file's name.
func joinURL(name, ref string) string {
	if strings.Contains(ref, "://") || strings.HasPrefix(ref, "~/") {
		return ref
	}
	if strings.HasPrefix(ref, "/") {
		if strings.HasPrefix(name, "~/") {
			return "~" + ref
		}
	}
	// A file uploaded under its full URL: the reference resolves against
	// that URL (path.Join would fold its "//").
	if strings.Contains(name, "://") {
		if base, err := url.Parse(name); err == nil {
			if r, err := url.Parse(ref); err == nil {
				return base.ResolveReference(r).String()
			}
		}
	}
	if strings.HasPrefix(ref, "/") {
		return ref
	}
	return path.Join(path.Dir(name), ref)
}
