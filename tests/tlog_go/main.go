// An independent check of the server's transparency log with Go's
// golang.org/x/mod/sumdb/tlog and sumdb/note (Debian's
// golang-golang-x-mod-dev, built offline with GO111MODULE=off).
//
// That version predates C2SP: its tile paths carry the tile height
// ("tile/8/0/000") and call entry bundles "data", and its tree note's
// first line is "go.sum database tree".  This program adapts around both;
// the log itself serves C2SP paths and checkpoints.
//
//	tlog-go-check check PREFIX VKEY OLD_CHECKPOINT|- RUN_LOG_JSON|-
//	    PREFIX is the log's URL (http://host/log) or a folder mirroring it.
//	    Verifies the checkpoint's signature with VKEY, every tile and entry
//	    bundle against it, consistency with OLD_CHECKPOINT, and the
//	    inclusion proof in RUN_LOG_JSON (the "log" member of /r/<id>.json).
//	tlog-go-check vectors N
//	    Prints, for the records "entry 0" .. "entry N-1", each record hash
//	    and tree hash, and some inclusion and consistency proofs.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "tlog-go-check: "+format+"\n", args...)
	os.Exit(1)
}

// fetch reads PREFIX/rel from a URL or a folder.
func fetch(prefix, rel string) ([]byte, error) {
	if strings.HasPrefix(prefix, "http://") || strings.HasPrefix(prefix, "https://") {
		resp, err := http.Get(prefix + "/" + rel)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			return nil, fmt.Errorf("%s/%s: HTTP %d", prefix, rel, resp.StatusCode)
		}
		return io.ReadAll(resp.Body)
	}
	return os.ReadFile(filepath.Join(prefix, rel))
}

// c2spPath is Go's tile path with the height dropped and "data" named
// "entries", as C2SP tlog-tiles lays tiles out.
func c2spPath(t tlog.Tile) string {
	p := strings.TrimPrefix(t.Path(), fmt.Sprintf("tile/%d/", height))
	p = strings.Replace(p, "data/", "entries/", 1)
	return "tile/" + p
}

type tileReader struct{ prefix string }

func (r tileReader) Height() int { return height }
func (r tileReader) SaveTiles([]tlog.Tile, [][]byte) {}
func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		b, err := fetch(r.prefix, c2spPath(t))
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// openCheckpoint verifies a checkpoint's signature and returns its tree:
// the C2SP body "origin\nN\nhash\n" is read as Go's "go.sum database
// tree\nN\nhash\n" by replacing the first line.
func openCheckpoint(text []byte, v note.Verifier) tlog.Tree {
	n, err := note.Open(text, note.VerifierList(v))
	if err != nil {
		fail("checkpoint signature: %v", err)
	}
	lines := strings.SplitN(n.Text, "\n", 2)
	if lines[0] != v.Name() {
		fail("checkpoint origin %q is not the key's name %q", lines[0], v.Name())
	}
	tree, err := tlog.ParseTree([]byte("go.sum database tree\n" + lines[1]))
	if err != nil {
		fail("checkpoint body: %v", err)
	}
	return tree
}

// entries splits an entry bundle (uint16 big-endian length-prefixed).
func entries(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 2 {
			fail("entry bundle ends inside a length")
		}
		n := int(b[0])<<8 | int(b[1])
		if len(b) < 2+n {
			fail("entry bundle ends inside an entry")
		}
		out = append(out, b[2:2+n])
		b = b[2+n:]
	}
	return out
}

func check(prefix, vkey, oldPath, runPath string) {
	v, err := note.NewVerifier(vkey)
	if err != nil {
		fail("verifier key: %v", err)
	}
	text, err := fetch(prefix, "checkpoint")
	if err != nil {
		fail("%v", err)
	}
	tree := openCheckpoint(text, v)
	hr := tlog.TileHashReader(tree, tileReader{prefix})
	th, err := tlog.TreeHash(tree.N, hr)
	if err != nil || th != tree.Hash {
		fail("tree hash from the tiles: %v (%v, want %v)", err, th, tree.Hash)
	}
	// Every level-0 tile and entry bundle: Go's reader checks each tile
	// against the checkpoint; each entry must hash to its leaf.
	var all [][]byte
	for i := int64(0); i < tree.N; i += 1 << height {
		t := tlog.TileForIndex(height, tlog.StoredHashIndex(0, i))
		t.L = -1
		if w := tree.N - i; w < 1<<height {
			t.W = int(w)
		} else {
			t.W = 1 << height
		}
		b, err := fetch(prefix, c2spPath(t))
		if err != nil {
			fail("%v", err)
		}
		es := entries(b)
		if len(es) != t.W {
			fail("entry bundle %s holds %d entries, want %d", c2spPath(t), len(es), t.W)
		}
		all = append(all, es...)
	}
	for i, e := range all {
		h, err := hr.ReadHashes([]int64{tlog.StoredHashIndex(0, int64(i))})
		if err != nil {
			fail("leaf %d: %v", i, err)
		}
		if tlog.RecordHash(e) != h[0] {
			fail("entry %d does not hash to its leaf in the tiles", i)
		}
	}
	fmt.Printf("ok checkpoint %d entries, tiles and entries match\n", tree.N)
	if oldPath != "-" {
		old, err := os.ReadFile(oldPath)
		if err != nil {
			fail("%v", err)
		}
		ot := openCheckpoint(old, v)
		p, err := tlog.ProveTree(tree.N, ot.N, hr)
		if err != nil {
			fail("consistency proof: %v", err)
		}
		if err := tlog.CheckTree(p, tree.N, tree.Hash, ot.N, ot.Hash); err != nil {
			fail("the checkpoint of %d entries is not consistent with the old one of %d: %v", tree.N, ot.N, err)
		}
		fmt.Printf("ok consistent with the checkpoint of %d entries\n", ot.N)
	}
	if runPath != "-" {
		checkRun(runPath, v, all)
	}
}

// checkRun verifies the inclusion proof of /r/<id>.json's "log" member
// against the checkpoint it names.
func checkRun(path string, v note.Verifier, all [][]byte) {
	var l struct {
		Index      int64    `json:"index"`
		TreeSize   int64    `json:"tree_size"`
		RootHash   string   `json:"root_hash"`
		Checkpoint string   `json:"checkpoint"`
		Proof      []string `json:"inclusion_proof"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fail("%v", err)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		fail("run log member: %v", err)
	}
	tree := openCheckpoint([]byte(l.Checkpoint), v)
	if tree.N != l.TreeSize || tree.Hash.String() != l.RootHash {
		fail("the run's tree_size and root_hash are not its checkpoint's")
	}
	var p tlog.RecordProof
	for _, s := range l.Proof {
		h, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(h) != tlog.HashSize {
			fail("proof hash %q", s)
		}
		var x tlog.Hash
		copy(x[:], h)
		p = append(p, x)
	}
	if l.Index >= int64(len(all)) {
		fail("index %d past the entries", l.Index)
	}
	if err := tlog.CheckRecord(p, tree.N, tree.Hash, l.Index, tlog.RecordHash(all[l.Index])); err != nil {
		fail("inclusion proof of entry %d: %v", l.Index, err)
	}
	fmt.Printf("ok entry %d included: %s", l.Index, bytes.TrimSpace(all[l.Index]))
	fmt.Println()
}

// memReader serves stored hashes from memory.
type memReader []tlog.Hash

func (m memReader) ReadHashes(idx []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(idx))
	for i, x := range idx {
		out[i] = m[x]
	}
	return out, nil
}

func vectors(n int64) {
	var stored memReader
	for i := int64(0); i < n; i++ {
		rec := []byte(fmt.Sprintf("entry %d", i))
		hs, err := tlog.StoredHashes(i, rec, stored)
		if err != nil {
			fail("%v", err)
		}
		stored = append(stored, hs...)
		th, _ := tlog.TreeHash(i+1, stored)
		rh := tlog.RecordHash(rec)
		fmt.Printf("leaf %d %x\n", i, rh[:])
		fmt.Printf("root %d %x\n", i+1, th[:])
	}
	for _, q := range [][2]int64{{0, 1}, {0, 7}, {3, 7}, {6, 7}, {5, 8}, {100, 257}, {256, 1000}, {999, 1000}} {
		if q[1] > n {
			continue
		}
		p, _ := tlog.ProveRecord(q[1], q[0], stored)
		fmt.Printf("inclusion %d %d", q[0], q[1])
		for _, h := range p {
			fmt.Printf(" %x", h[:])
		}
		fmt.Println()
	}
	for _, q := range [][2]int64{{1, 2}, {3, 7}, {4, 7}, {6, 7}, {5, 8}, {256, 257}, {300, 1000}, {999, 1000}} {
		if q[1] > n {
			continue
		}
		p, _ := tlog.ProveTree(q[1], q[0], stored)
		fmt.Printf("consistency %d %d", q[0], q[1])
		for _, h := range p {
			fmt.Printf(" %x", h[:])
		}
		fmt.Println()
	}
}

func main() {
	if len(os.Args) == 6 && os.Args[1] == "check" {
		check(strings.TrimRight(os.Args[2], "/"), os.Args[3], os.Args[4], os.Args[5])
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "vectors" {
		var n int64
		fmt.Sscan(os.Args[2], &n)
		vectors(n)
		return
	}
	fmt.Fprintln(os.Stderr, "usage: tlog-go-check check PREFIX VKEY OLD|- RUNLOG|-  |  vectors N")
	os.Exit(2)
}
