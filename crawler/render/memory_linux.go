package render

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"strconv"

	"github.com/chromedp/chromedp"
)

// browserMemoryMB returns the proportional set size of the browser of
// ctx and of every process under it (renderers, the GPU and network
// services), in MiB: what the browser costs the machine, its shared
// pages counted once.
func browserMemoryMB(ctx context.Context) (int, bool) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Browser == nil || c.Browser.Process() == nil {
		return 0, false
	}
	root := c.Browser.Process().Pid
	children := make(map[int][]int)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	kb := 0
	for todo := []int{root}; len(todo) > 0; {
		pid := todo[len(todo)-1]
		todo = append(todo[:len(todo)-1], children[pid]...)
		kb += pssKB(pid)
	}
	return kb / 1024, true
}

// parentOf reads a process's parent from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	return ppid, err == nil
}

// pssKB reads a process's proportional set size from smaps_rollup.
func pssKB(pid int) int {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("Pss:")); ok {
			f := bytes.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.Atoi(string(f[0]))
				return n
			}
		}
	}
	return 0
}
