// Command benchclient is BenchmarkMockRequest's client inside a Docker
// runtime's container: it sends the benchmark's request to each URL
// given, N times, one request to each per round in a rotating order, as
// the benchmark does outside, and prints the time each URL's requests took
// in all (nanoseconds, one line each, in the order given). A first request
// to each URL is sent before and not counted, so the first dial is not
// counted as a request's. An answer other than the expected status and
// body ends it with status 1 and says which.
//
//	benchclient N keepalive|newconn REQUEST_FILE REPLY_FILE URL...
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
	if len(os.Args) < 6 {
		fail("usage: benchclient N keepalive|newconn REQUEST_FILE REPLY_FILE URL...")
	}
	n, err := strconv.Atoi(os.Args[1])
	if err != nil || n < 0 {
		fail("N: expected a count, got %q", os.Args[1])
	}
	body, err := os.ReadFile(os.Args[3])
	if err != nil {
		fail("%v", err)
	}
	reply, err := os.ReadFile(os.Args[4])
	if err != nil {
		fail("%v", err)
	}
	urls := os.Args[5:]
	client := &http.Client{Timeout: 2 * time.Minute,
		Transport: &http.Transport{DisableKeepAlives: os.Args[2] != "keepalive", MaxIdleConnsPerHost: 4}}
	send := func(url string) time.Duration {
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
		if err != nil || resp.StatusCode != 201 || !bytes.Equal(got, reply) {
			fail("%s answered %d %s (%v), expected 201 %s", url, resp.StatusCode, got, err, reply)
		}
		return took
	}
	for _, u := range urls {
		send(u)
	}
	total := make([]time.Duration, len(urls))
	for i := 0; i < n; i++ {
		for j := range urls {
			k := (i + j) % len(urls)
			total[k] += send(urls[k])
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
