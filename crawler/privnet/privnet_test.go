package privnet_test

import (
	"errors"
	"net/netip"
	"testing"

	"go.uber.org/goleak"

	"github.com/linksrus/linksrus/crawler/privnet"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestIsSpecialPurpose(t *testing.T) {
	cases := []struct {
		addr    string
		special bool
	}{
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"93.184.216.34", false},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"10.1.2.3", true},
		{"100.64.0.1", true},
		{"100.127.255.255", true},
		{"100.128.0.1", false},
		{"127.0.0.1", true},
		{"127.255.255.254", true},
		{"169.254.169.254", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"172.32.0.1", false},
		{"192.0.0.9", true},
		{"192.0.2.1", true},
		{"192.31.196.1", true},
		{"192.52.193.1", true},
		{"192.88.99.1", true},
		{"192.168.1.1", true},
		{"192.175.48.1", true},
		{"198.18.0.1", true},
		{"198.19.255.255", true},
		{"198.20.0.1", false},
		{"198.51.100.7", true},
		{"203.0.113.7", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"240.0.0.1", true},
		{"255.255.255.255", true},
		// IPv6
		{"2606:4700:4700::1111", false},
		{"2001:4860:4860::8888", false},
		{"::", true},
		{"::1", true},
		{"::127.0.0.1", true},
		{"::ffff:127.0.0.1", true},
		{"::ffff:10.0.0.1", true},
		{"::ffff:8.8.8.8", false},
		{"::ffff:0:8.8.8.8", true},
		{"64:ff9b::7f00:1", true},
		{"64:ff9b::a9fe:a9fe", true},
		{"64:ff9b::808:808", false},
		{"64:ff9b:1::1", true},
		{"100::1", true},
		{"2001::1", true},             // Teredo
		{"2001:0:4136:e378::1", true}, // Teredo with a server address
		{"2001:2::1", true},           // benchmarking
		{"2001:db8::1", true},         // documentation
		{"2002:7f00:1::1", true},      // 6to4 of 127.0.0.1
		{"2002:808:808::1", true},     // 6to4 as a whole
		{"2620:4f:8000::1", true},     // AS112
		{"3fff::1", true},             // documentation
		{"5f00::1", true},             // SRv6
		{"fc00::1", true},             // unique-local
		{"fd12:3456::1", true},        // unique-local
		{"fe80::1", true},             // link-local
		{"fe80::1%eth0", true},        // zoned link-local
		{"fec0::1", true},             // site-local
		{"ff02::1", true},             // multicast
		{"4000::1", true},             // outside 2000::/3
		{"e000::1", true},             // outside 2000::/3
	}
	for _, c := range cases {
		a := netip.MustParseAddr(c.addr)
		if got := privnet.IsSpecialPurpose(a); got != c.special {
			t.Errorf("IsSpecialPurpose(%s) = %v, want %v", c.addr, got, c.special)
		}
	}
	if !privnet.IsSpecialPurpose(netip.Addr{}) {
		t.Error("the invalid address must count as special")
	}
}

func TestIsPrivate(t *testing.T) {
	none := privnet.New()
	loop := privnet.New(netip.MustParsePrefix("127.0.0.1/32"))
	lan := privnet.New(netip.MustParsePrefix("10.0.0.0/8"))
	cases := []struct {
		d       *privnet.Detector
		host    string
		private bool
	}{
		{none, "example.com", false},
		{none, "EXAMPLE.com.", false},
		{none, "example.com:8080", false},
		{none, "8.8.8.8", false},
		{none, "127.0.0.1", true},
		{none, "127.0.0.1:80", true},
		{none, "[::1]", true},
		{none, "[::1]:443", true},
		{none, "::1", true},
		{none, "[::ffff:7f00:1]", true},
		{none, "fe80::1%eth0", true},
		{none, "2130706433", true},
		{none, "0x7f.1", true},
		{none, "0177.0.0.01", true},
		{none, "0x7F000001", true},
		{none, "134744072", false}, // 8.8.8.8
		{none, "localhost", true},
		{none, "LocalHost.", true},
		{none, "api.localhost", true},
		{none, "intranet", true},
		{none, "printer.local", true},
		{none, "db.internal", true},
		{none, "nas.home.arpa", true},
		{none, "router.lan", true},
		{none, "metadata.google.internal", true},
		{none, "localhost.example.com", false},
		{loop, "127.0.0.1", false},
		{loop, "127.0.0.2", true},
		{loop, "localhost", false},
		{loop, "intranet", false}, // judged by address at dial time
		{lan, "10.9.8.7", false},
		{lan, "::ffff:10.9.8.7", false},
		{lan, "64:ff9b::a09:807", false},
		{lan, "localhost", true},
		{lan, "wiki.corp", false},
		{lan, "192.168.0.1", true},
		{&privnet.Detector{}, "10.0.0.1", true},
	}
	for _, c := range cases {
		got, err := c.d.IsPrivate(c.host)
		if err != nil {
			t.Errorf("IsPrivate(%q): %v", c.host, err)
			continue
		}
		if got != c.private {
			t.Errorf("IsPrivate(%q) = %v, want %v", c.host, got, c.private)
		}
	}
}

// Every spelling of an address that browsers (and the crawler's URL
// normalisation) read as that address is judged as the address, so none is
// a way around the check.
func TestIsPrivateSpellingsBrowsersRead(t *testing.T) {
	none := privnet.New()
	for _, h := range []string{
		"0x7f.1", "2130706433", "127.1", "127.0.1", "0x7f.0.0.1", "017700000001", "0x7f.1.",
		"0X7F.1:8080", "%30x7f.1", "０ｘ７ｆ．１", "0000000000000000000000000177.1",
		"0xa9.0xfe.0xa9.0xfe", "2852039166", "0xa.1", "167772161", "0xc0a80001",
		"api.ｌｏｃａｌｈｏｓｔ", "LOCALHOST", "printer.%6cocal",
	} {
		got, err := none.IsPrivate(h)
		if err != nil || !got {
			t.Errorf("IsPrivate(%q) = %v, %v; want true", h, got, err)
		}
	}
	for _, h := range []string{"134744072", "0x8.0x8.0x8.0x8", "8.8.2056", "bücher.example"} {
		got, err := none.IsPrivate(h)
		if err != nil || got {
			t.Errorf("IsPrivate(%q) = %v, %v; want false", h, got, err)
		}
	}
}

func TestIsPrivateInvalidHost(t *testing.T) {
	for _, h := range []string{
		"", ".", "[]", "a b", "exa\x00mple.com", "ex:am:ple",
		// They end in a number but are no IPv4 address: browsers refuse them.
		"256.256.256.256", "1.2.3.4.5", "foo.09", "0x100000000", "4294967296", "127.0.0.0x100",
	} {
		if _, err := privnet.New().IsPrivate(h); !errors.Is(err, privnet.ErrInvalidHost) {
			t.Errorf("IsPrivate(%q): err = %v, want ErrInvalidHost", h, err)
		}
	}
}

func TestParseAllowList(t *testing.T) {
	got, err := privnet.ParseAllowList("10.0.0.0/8", " 127.0.0.1 ", "::1", "::ffff:192.168.1.1")
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("127.0.0.1/32"),
		netip.MustParsePrefix("::1/128"),
		netip.MustParsePrefix("192.168.1.1/32"),
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "not-an-ip", "", "1.2.3.4/x"} {
		if _, err := privnet.ParseAllowList(bad); err == nil {
			t.Errorf("ParseAllowList(%q) succeeded", bad)
		}
	}
}

func TestControl(t *testing.T) {
	d := privnet.New(netip.MustParsePrefix("127.0.0.1/32"))
	if err := d.Control("tcp4", "127.0.0.1:80", nil); err != nil {
		t.Errorf("allow-listed address refused: %v", err)
	}
	if err := d.Control("tcp4", "93.184.216.34:80", nil); err != nil {
		t.Errorf("public address refused: %v", err)
	}
	for _, addr := range []string{"127.0.0.2:80", "[::1]:80", "[::ffff:169.254.169.254]:80", "10.0.0.1:443"} {
		if err := d.Control("tcp", addr, nil); !errors.Is(err, privnet.ErrPrivateAddress) {
			t.Errorf("Control(%s) = %v, want ErrPrivateAddress", addr, err)
		}
	}
	if err := d.Control("tcp", "no-port", nil); !errors.Is(err, privnet.ErrInvalidHost) {
		t.Errorf("Control(no-port) = %v, want ErrInvalidHost", err)
	}
}
