package chromium_test

import (
	"errors"
	"fmt"

	"github.com/linksrus/linksrus/internal/chromium"
)

// Path finds the browser, or says how to install it.
func ExamplePath() {
	_, err := chromium.Path()
	fmt.Println(err == nil || errors.Is(err, chromium.ErrNotFound))
	// Output: true
}
