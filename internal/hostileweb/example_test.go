package hostileweb_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/linksrus/linksrus/internal/hostileweb"
)

// A crawler test starts the server, crawls it from its index and compares
// the reasons the crawler reported with the route table.
func Example() {
	srv, err := hostileweb.Start(hostileweb.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	for _, r := range srv.Routes() {
		if r.Reason != hostileweb.ReasonNone {
			fmt.Printf("%-20s %s\n", r.Name, r.Reason)
		}
	}
	// Output:
	// drip                 timeout
	// endless              body-too-large
	// gzip-bomb            body-too-large
	// redirect-loop        redirect-loop
	// redirect-chain       too-many-redirects
	// many-links           too-many-links
	// deep-nesting         too-deep
	// invalid-utf8         invalid-encoding
	// mislabelled-charset  charset-mismatch
	// calendar             link-trap
	// huge-headers         header-too-large
	// connection-reset     connection-reset
	// image-as-html        content-type
	// robots               bad-robots
	// silent               timeout
}

// The silent listener completes the TCP handshake and then says nothing, so
// only a client deadline ends the request.
func ExampleServer_SilentURL() {
	srv, err := hostileweb.Start(hostileweb.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 200 * time.Millisecond}
	_, err = client.Get(srv.SilentURL())
	var ne net.Error
	fmt.Println("timed out:", errors.As(err, &ne) && ne.Timeout())
	// Output:
	// timed out: true
}
