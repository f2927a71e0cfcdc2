package privnet_test

import (
	"fmt"
	"net/http"

	"github.com/linksrus/linksrus/crawler/privnet"
)

func ExampleDetector_IsPrivate() {
	allow, err := privnet.ParseAllowList("10.0.0.0/8")
	if err != nil {
		panic(err)
	}
	d := privnet.New(allow...)
	for _, host := range []string{"example.com", "127.0.0.1", "0x7f.1", "10.1.2.3", "[::ffff:192.168.0.1]:8080", "localhost"} {
		private, err := d.IsPrivate(host)
		fmt.Println(host, private, err)
	}
	// Output:
	// example.com false <nil>
	// 127.0.0.1 true <nil>
	// 0x7f.1 true <nil>
	// 10.1.2.3 false <nil>
	// [::ffff:192.168.0.1]:8080 true <nil>
	// localhost true <nil>
}

func ExampleDetector_Transport() {
	d := privnet.New()
	client := &http.Client{Transport: d.Transport()}
	_, err := client.Get("http://127.0.0.1:9/")
	fmt.Println(err)
	// Output:
	// Get "http://127.0.0.1:9/": dial tcp 127.0.0.1:9: privnet: private or special-purpose address 127.0.0.1
}
