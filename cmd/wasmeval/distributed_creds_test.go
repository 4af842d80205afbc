package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"

	"github.com/wasmeval/wasmeval/engine/distribute"
	"github.com/wasmeval/wasmeval/engine/distribute/natstest"
	"github.com/wasmeval/wasmeval/engine/result"
)

// natsAccount is an account of a test operator (with JetStream on
// unless it is the system account, where the server refuses it).
type natsAccount struct {
	pub, jwt string
	key      nkeys.KeyPair
}

func newNATSAccount(t *testing.T, operator nkeys.KeyPair, jetStream bool) natsAccount {
	t.Helper()
	kp, err := nkeys.CreateAccount()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.NewAccountClaims(pub)
	if jetStream {
		claims.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	}
	token, err := claims.Encode(operator)
	if err != nil {
		t.Fatal(err)
	}
	return natsAccount{pub: pub, jwt: token, key: kp}
}

// userCreds writes a credentials file of a new user of account a.
func userCreds(t *testing.T, a natsAccount) string {
	t.Helper()
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kp.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	token, err := jwt.NewUserClaims(pub).Encode(a.key)
	if err != nil {
		t.Fatal(err)
	}
	seed, err := kp.Seed()
	if err != nil {
		t.Fatal(err)
	}
	creds, err := jwt.FormatUserConfig(token, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "user.creds")
	if err := os.WriteFile(path, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A server in operator mode (JWT accounts) takes runs and workers given a
// user's credentials file, and refuses a user of an account it does not
// know with one line.
func TestQueueCredentialsFile(t *testing.T) {
	natstest.Require(t)
	operator, err := nkeys.CreateOperator()
	if err != nil {
		t.Fatal(err)
	}
	opub, err := operator.PublicKey()
	if err != nil {
		t.Fatal(err)
	}
	ojwt, err := jwt.NewOperatorClaims(opub).Encode(operator)
	if err != nil {
		t.Fatal(err)
	}
	sys, acct, stranger := newNATSAccount(t, operator, false), newNATSAccount(t, operator, true), newNATSAccount(t, operator, true)
	port := natstest.FreePort(t)
	conf := filepath.Join(t.TempDir(), "nats.conf")
	text := "listen: 127.0.0.1:" + strconv.Itoa(port) + "\n" +
		"operator: " + ojwt + "\n" +
		"system_account: " + sys.pub + "\n" +
		"resolver: MEMORY\n" +
		"resolver_preload: {\n  " + sys.pub + ": " + sys.jwt + "\n  " + acct.pub + ": " + acct.jwt + "\n}\n" +
		"jetstream { store_dir: " + strconv.Quote(t.TempDir()) + " }\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	srv := exec.Command(natstest.Bin, "-c", conf)
	srv.Stdout, srv.Stderr = log, log
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Process.Kill(); _ = srv.Wait() })
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	creds := userCreds(t, acct)
	waitUntil(t, "nats-server answers", func() bool {
		nc, _, err := distribute.Connect(context.Background(), url, "probe", distribute.WithCreds(creds))
		if err == nil {
			nc.Close()
		}
		return err == nil
	})

	w := startProc(t, "worker", "--queue", url, "--queue-creds", creds, "--slots", "2", "--name", "jwt", "--cache", t.TempDir())
	waitUntil(t, "the worker serves", func() bool {
		select {
		case <-w.done:
			t.Fatalf("the worker ended:\n%s\nnats-server:\n%s", w.out, log)
		default:
		}
		return strings.Contains(w.out.String(), "serving")
	})
	out := filepath.Join(t.TempDir(), "run")
	coord := startProc(t, "run", batchExample+"/problems/add", "--submission", batchExample+"/submissions/reference/add",
		"--queue", url, "--queue-creds", creds, "--progress", "none", "--out", out, "--no-history")
	if code := coord.wait(t, "the coordinator"); code != 0 {
		t.Fatalf("run exited %d:\n%s\nworker:\n%s", code, coord.out, w.out)
	}
	eachCaseOnce(t, out, 0, result.OutcomePassed)

	// A user of an account the server was not given.
	res := wasmeval(t, "worker", "--queue", url, "--queue-creds", userCreds(t, stranger))
	if want := "refused the credentials (authorization violation)"; res.code != exitUsage || !strings.Contains(res.stderr, want) || strings.Count(strings.TrimSpace(res.stderr), "\n") != 0 {
		t.Errorf("worker with an unknown account's credentials: exit %d, stderr %q; want exit 2 and one line with %q", res.code, res.stderr, want)
	}
}
