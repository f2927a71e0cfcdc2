package urlnorm_test

import (
	"errors"
	"fmt"

	"github.com/linksrus/linksrus/crawler/urlnorm"
)

func ExampleNormalize() {
	for _, raw := range []string{
		"HTTP://User@Example.COM:80/a/./b/../%7Euser?#top",
		"https://Bücher.example./x y",
		"http://example.com//index.html", // unsafe rewrites are not applied
	} {
		u, err := urlnorm.Normalize(raw, urlnorm.Options{})
		fmt.Println(u, err)
	}
	// Output:
	// http://example.com/a/~user <nil>
	// https://xn--bcher-kva.example/x%20y <nil>
	// http://example.com//index.html <nil>
}

func ExampleNormalize_options() {
	opts := urlnorm.Options{SortQuery: true, StripTracking: true}
	u, _ := urlnorm.Normalize("https://example.com/p?z=1&utm_source=mail&a=2&gclid=x", opts)
	fmt.Println(u)
	// Output: https://example.com/p?a=2&z=1
}

func ExampleNormalize_errors() {
	_, err := urlnorm.Normalize("mailto:op@example.com", urlnorm.Options{})
	fmt.Println(errors.Is(err, urlnorm.ErrUnsupportedScheme))
	_, err = urlnorm.Normalize("/relative", urlnorm.Options{})
	fmt.Println(errors.Is(err, urlnorm.ErrNotAbsolute))
	// Output:
	// true
	// true
}

func ExampleRemoveDotSegments() {
	for _, p := range []string{"/a/b/../c/./d", "/a/..", "/../x", "/a//./b", ""} {
		fmt.Printf("%q\n", urlnorm.RemoveDotSegments([]byte(p)))
	}
	// Output:
	// "/a/c/d"
	// "/"
	// "/x"
	// "/a//b"
	// "/"
}

func ExampleResolve() {
	const page = "https://example.com/docs/page.html"
	for _, href := range []string{
		"12:30-meeting.html", // a path, not a scheme
		"../sale-50%-off.html#top",
		"//0x7f.1/admin", // an IPv4 address, spelt as browsers read it
		"http:\\\\example.org\\a?b\\c",
		"http://256.256.256.256/",
	} {
		u, err := urlnorm.Resolve(page, href, urlnorm.Options{})
		fmt.Println(u, err != nil)
	}
	// Output:
	// https://example.com/docs/12:30-meeting.html false
	// https://example.com/sale-50%25-off.html false
	// https://127.0.0.1/admin false
	// http://example.org/a?b%5Cc false
	//  true
}

func ExampleNormalizeHost() {
	for _, h := range []string{"Bücher.Example.", "2130706433", "0x7f.1", "foo.09"} {
		fmt.Println(urlnorm.NormalizeHost(h))
	}
	// Output:
	// xn--bcher-kva.example <nil>
	// 127.0.0.1 <nil>
	// 127.0.0.1 <nil>
	//  normalise host "foo.09": urlnorm: invalid host: bad number "foo" in IPv4 address "foo.09"
}
