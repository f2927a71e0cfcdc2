package urlnorm

import "bytes"

// RemoveDotSegments resolves the "." and ".." segments of the absolute path p
// (RFC 3986 section 5.2.4) in place and returns the shortened slice; an empty
// p becomes "/". Empty segments are kept: "//" is significant to many
// servers. It is the path step of Normalize, exported for callers that build
// a URL from parts already in canonical form (such as a link resolved
// against a normalised page URL) and need only this step, without a
// round trip through a string.
func RemoveDotSegments(p []byte) []byte {
	out := p[:0] // writes never overtake reads, so p can be reused
	for r := 0; r < len(p); {
		end := r + 1 // p[r] is always '/'
		for end < len(p) && p[end] != '/' {
			end++
		}
		seg := p[r+1 : end]
		last := end == len(p)
		switch {
		case len(seg) == 1 && seg[0] == '.':
			if last {
				out = append(out, '/')
			}
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.':
			if k := bytes.LastIndexByte(out, '/'); k >= 0 {
				out = out[:k]
			}
			if last {
				out = append(out, '/')
			}
		default:
			out = append(out, p[r:end]...)
		}
		r = end
	}
	if len(out) == 0 {
		out = append(out, '/')
	}
	return out
}
