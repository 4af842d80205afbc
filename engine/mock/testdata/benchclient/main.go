// Command benchclient is BenchmarkMockRequest's client inside a Docker
// runtime's container: it sends the benchmark's request to each URL
// given, N times, one request to each per round in a rotating order, as
// the benchmark does outside, and prints the time each URL's requests took
// in all (nanoseconds, one line each, in the order given). A first request
// to each URL is sent before and not counted, so the first dial is not
// counted as a request's. Each URL comes with the reply expected from it:
// a file whose content comes with status 201, "-" for the answers of the
// host tests' mock plugin (201 for the first charge, 409 after), or
// "echo" for the Rust conformance plugin's echo mock (200). An answer
// other than the expected one ends it with status 1 and says which.
//
//	benchclient N keepalive|newconn REQUEST_FILE (URL REPLY_FILE|-|echo)...
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 6 || len(os.Args)%2 != 0 {
		fail("usage: benchclient N keepalive|newconn REQUEST_FILE (URL REPLY_FILE|-)...")
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 0 {
		fail("N: expected a count, got %q", os.Args[1])
	}
	body, err := os.ReadFile(os.Args[3])
	if err != nil {
		fail("%v", err)
	}
	var urls []string
	var replies [][]byte // nil: the plugin's answers
	echo := map[int]bool{}
	for i := 4; i+1 < len(os.Args); i += 2 {
		urls = append(urls, os.Args[i])
		var reply []byte
		if os.Args[i+1] == "echo" {
			echo[len(replies)] = true
		} else if os.Args[i+1] != "-" {
			if reply, err = os.ReadFile(os.Args[i+1]); err != nil {
				fail("%v", err)
			}
		}
		replies = append(replies, reply)
	}
	client := &http.Client{Timeout: 2 * time.Minute,
		Transport: &http.Transport{DisableKeepAlives: os.Args[2] != "keepalive", MaxIdleConnsPerHost: 4}}
	send := func(k int) time.Duration {
		url, reply := urls[k], replies[k]
		req, err := http.NewRequest("POST", url+"/v1/charges", bytes.NewReader(body))
		if err != nil {
			fail("%v", err)
		}
		req.Header.Set("Content-Type", "application/json")
		begin := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			fail("%s: %v", url, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(begin)
		ok := resp.StatusCode == 201 && bytes.Equal(got, reply)
		switch {
		case echo[k]:
			ok = resp.StatusCode == 200
		case reply == nil:
			ok = resp.StatusCode == 201 || resp.StatusCode == 409
		}
		if err != nil || !ok {
			fail("%s answered %d %s (%v), expected 201 %s", url, resp.StatusCode, got, err, reply)
		}
		return took
	}
	for k := range urls {
		send(k)
	}
	total := make([]time.Duration, len(urls))
	for i := 0; i < n; i++ {
		for j := range urls {
			k := (i + j) % len(urls)
			total[k] += send(k)
		}
	}
	for _, t := range total {
		fmt.Println(int64(t))
	}
}

func fail(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "benchclient: "+format+"\n", a...)
	os.Exit(1)
}
