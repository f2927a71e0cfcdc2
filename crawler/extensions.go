package crawler

import (
	"path"
	"strings"
)

// nonHTMLExtensions are file extensions whose URLs name content that cannot
// be an HTML page. Servers may of course answer anything for any path, but
// fetching these to find out would spend most of a crawl's bandwidth on
// images and downloads.
var nonHTMLExtensions = setOf(
	// images
	"apng", "avif", "bmp", "gif", "heic", "heif", "ico", "jfif", "jp2", "jpe", "jpeg", "jpg",
	"png", "psd", "raw", "svg", "svgz", "tif", "tiff", "webp",
	// audio and video
	"3gp", "aac", "aif", "aiff", "avi", "flac", "flv", "m3u8", "m4a", "m4v", "mid", "midi",
	"mkv", "mov", "mp3", "mp4", "mpeg", "mpg", "oga", "ogg", "ogv", "opus", "ts", "wav",
	"webm", "wma", "wmv",
	// archives, packages and binaries
	"7z", "apk", "bin", "bz2", "cab", "deb", "dmg", "exe", "gz", "iso", "jar", "lz", "lzma",
	"msi", "rar", "rpm", "tar", "tbz2", "tgz", "txz", "wasm", "xz", "zip", "zst",
	// fonts
	"eot", "otf", "ttf", "woff", "woff2",
	// scripts, styles and data
	"css", "csv", "js", "json", "map", "mjs", "rss", "atom", "xml", "xsl", "yaml", "yml",
	// documents
	"doc", "docx", "epub", "odp", "ods", "odt", "pdf", "ppt", "pptx", "ps", "rtf", "xls", "xlsx",
)

func setOf(items ...string) map[string]struct{} {
	m := make(map[string]struct{}, len(items))
	for _, it := range items {
		m[it] = struct{}{}
	}
	return m
}

// hasNonHTMLExtension reports whether the path of a URL (without its query
// or fragment) ends in one of nonHTMLExtensions, in any letter case.
func hasNonHTMLExtension(urlPath string) bool {
	ext := path.Ext(urlPath)
	if len(ext) < 2 || len(ext) > 6 {
		return false
	}
	ext = ext[1:]
	if _, ok := nonHTMLExtensions[ext]; ok {
		return true
	}
	_, ok := nonHTMLExtensions[strings.ToLower(ext)]
	return ok
}
